package dev.quarry.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A compiled route path: literal segments, {@code {name}} segments that capture one path segment, and an optional
 * trailing {@code *} that captures the rest (possibly empty). Matches decoded paths.
 */
final class PathPattern {
    private final String[] segments;
    private final boolean[] parameter;
    private final boolean rest;

    private PathPattern(String[] segments, boolean[] parameter, boolean rest) {
        this.segments = segments;
        this.parameter = parameter;
        this.rest = rest;
    }

    static PathPattern compile(String path) {
        boolean rest = path.endsWith("/*") || path.equals("*");
        String body = rest ? path.substring(0, path.length() - (path.endsWith("/*") ? 2 : 1)) : path;
        List<String> parts = new ArrayList<>();
        for (String part : body.split("/", -1)) {
            parts.add(part);
        }
        if (!parts.isEmpty() && parts.get(0).isEmpty()) {
            parts.remove(0); // the leading "/"
        }
        String[] segments = new String[parts.size()];
        boolean[] parameter = new boolean[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            String part = parts.get(i);
            if (part.startsWith("{") && part.endsWith("}") && part.length() > 2) {
                segments[i] = part.substring(1, part.length() - 1);
                parameter[i] = true;
            } else if (part.contains("{") || part.contains("}") || part.contains("*")) {
                throw new IllegalArgumentException("bad route segment '" + part + "' in '" + path
                        + "': use {name} for a whole segment, and * only at the end");
            } else {
                segments[i] = part;
            }
        }
        return new PathPattern(segments, parameter, rest);
    }

    /** @return whether the path matches; allocates nothing */
    boolean matches(String path) {
        int position = 1; // after the leading "/"
        for (int i = 0; i < segments.length; i++) {
            if (position > path.length()) {
                return false;
            }
            int slash = path.indexOf('/', position);
            int end = slash < 0 ? path.length() : slash;
            if (parameter[i] ? end == position : !isLiteral(path, position, end, segments[i])) {
                return false;
            }
            position = end + 1;
        }
        return rest || position > path.length();
    }

    private static boolean isLiteral(String path, int from, int end, String segment) {
        return end - from == segment.length() && path.regionMatches(from, segment, 0, segment.length());
    }

    /** @return the captured parameters, or null if the path does not match */
    Map<String, String> match(String path) {
        Map<String, String> params = null;
        int position = 1; // after the leading "/"
        for (int i = 0; i < segments.length; i++) {
            if (position > path.length()) {
                return null;
            }
            int slash = path.indexOf('/', position);
            int end = slash < 0 ? path.length() : slash;
            if (parameter[i]) {
                if (end == position) {
                    return null; // a parameter never matches an empty segment
                }
                if (params == null) {
                    params = new LinkedHashMap<>();
                }
                params.put(segments[i], path.substring(position, end));
            } else if (!path.regionMatches(position, segments[i], 0, segments[i].length())
                    || end - position != segments[i].length()) {
                return null;
            }
            position = end + 1;
        }
        if (rest) {
            if (params == null) {
                params = new LinkedHashMap<>();
            }
            params.put("*", position > path.length() ? "" : path.substring(Math.min(position, path.length())));
            return params;
        }
        if (position <= path.length()) {
            return null; // the path has more segments
        }
        return params == null ? Map.of() : params;
    }
}
