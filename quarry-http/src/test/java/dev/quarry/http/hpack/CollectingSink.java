package dev.quarry.http.hpack;

import java.util.ArrayList;
import java.util.List;

/** Collects decoded fields, keeping the never-indexed flag in {@link HeaderField#sensitive()}. */
final class CollectingSink implements HeaderSink {

    final List<HeaderField> fields = new ArrayList<>();

    @Override
    public void header(String name, String value) {
        throw new AssertionError("the decoder must call the three-argument overload");
    }

    @Override
    public void header(String name, String value, boolean neverIndexed) {
        fields.add(new HeaderField(name, value, neverIndexed));
    }

    /** @return the fields without their flags, for comparing with an expected list */
    List<HeaderField> plain() {
        return fields.stream().map(f -> new HeaderField(f.name(), f.value())).toList();
    }
}
