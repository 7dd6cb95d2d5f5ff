package dev.lore.mongo;

import java.util.HashMap;
import java.util.Map;

/**
 * The parts of a stored document a query reads, as a tree of field names: a name mapped to null
 * is read whole; a name mapped to a subtree is an embedded document of which only the subtree's
 * fields are read (a projection of {@code slots.a.b} needs {@code slots.a.b}, not the rest of
 * {@code slots}). Filters and sorts read their top-level field whole, so matching never sees a
 * partial value. See {@link StoreTypes#decodeFields}.
 */
final class FieldTree {

    private final Map<String, FieldTree> children = new HashMap<>();

    /** Reads {@code name} whole, whatever was asked of it before. */
    void addWhole(String name) {
        children.put(name, null);
    }

    /** Reads the value at a dotted path: the path's last field whole, its parents only in part. */
    void addPath(String path) {
        FieldTree node = this;
        String[] segments = path.split("\\.", -1);
        for (int i = 0; i < segments.length; i++) {
            String name = segments[i];
            if (i == segments.length - 1) {
                node.children.put(name, null);
                return;
            }
            if (node.children.containsKey(name)) {
                FieldTree child = node.children.get(name);
                if (child == null) {
                    return; // read whole already
                }
                node = child;
            } else {
                FieldTree child = new FieldTree();
                node.children.put(name, child);
                node = child;
            }
        }
    }

    boolean contains(String name) {
        return children.containsKey(name);
    }

    /** The subtree of {@code name}, or null when it is read whole (or not at all: see contains). */
    FieldTree child(String name) {
        return children.get(name);
    }
}
