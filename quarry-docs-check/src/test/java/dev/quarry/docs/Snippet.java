package dev.quarry.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One fenced {@code ```java} block of a Markdown file, as written.
 *
 * @param file the Markdown file, relative to the repository root
 * @param line the 1-based line of the opening fence
 * @param source the lines between the fences
 */
record Snippet(Path file, int line, String source) {

    /** @return where the snippet is, the way an editor takes it: {@code docs/pool.md:8} */
    String location() {
        return file.toString().replace('\\', '/') + ":" + line;
    }

    @Override
    public String toString() {
        return location();
    }

    /**
     * @param root the repository root
     * @param file a Markdown file under it
     * @return its {@code ```java} blocks, in order
     */
    static List<Snippet> in(Path root, Path file) {
        try {
            return parse(root.relativize(file), Files.readString(file));
        } catch (IOException x) {
            throw new UncheckedIOException("reading " + file, x);
        }
    }

    /**
     * Extracts the {@code ```java} blocks of a Markdown text. A fence is three or more backticks at the start of a
     * line (after up to three spaces, CommonMark); a block ends at the next fence of at least as many backticks.
     * Blocks of other languages are skipped whole, so a {@code ```java} line inside a {@code ```markdown} example is
     * not a snippet.
     *
     * @throws IllegalArgumentException for a block that is never closed, naming the file and the line
     */
    static List<Snippet> parse(Path file, String markdown) {
        List<Snippet> snippets = new ArrayList<>();
        String[] lines = markdown.split("\r?\n", -1);
        int i = 0;
        while (i < lines.length) {
            String fence = fence(lines[i]);
            if (fence == null) {
                i++;
                continue;
            }
            String info = lines[i].strip().substring(fence.length()).strip();
            int open = i;
            StringBuilder body = new StringBuilder();
            i++;
            while (i < lines.length && !closes(lines[i], fence)) {
                body.append(lines[i]).append('\n');
                i++;
            }
            if (i == lines.length) {
                throw new IllegalArgumentException(
                        file + ":" + (open + 1) + ": the code block opened here is never closed");
            }
            if (info.equals("java") || info.startsWith("java ")) {
                snippets.add(new Snippet(file, open + 1, body.toString()));
            }
            i++;
        }
        return snippets;
    }

    /** @return the backticks that open a fenced block on this line, or null */
    private static String fence(String line) {
        String stripped = line.stripLeading();
        if (line.length() - stripped.length() > 3 || !stripped.startsWith("```")) {
            return null;
        }
        int n = 0;
        while (n < stripped.length() && stripped.charAt(n) == '`') {
            n++;
        }
        return stripped.substring(0, n);
    }

    private static boolean closes(String line, String fence) {
        String closing = fence(line);
        return closing != null
                && closing.length() >= fence.length()
                && line.strip().equals(closing);
    }
}
