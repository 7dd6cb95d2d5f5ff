package dev.lore.mongo;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.h2.mvstore.WriteBuffer;

/**
 * Writes the small BSON documents that keys are stored as ({@code {"v": x}}, {@code {"k": [x, …]}},
 * see {@link StoreTypes}) straight into the page buffer, when every value is a string, a 32- or
 * 64-bit integer, a double, a boolean or null: the types Lore's keys and ids are made of. Anything
 * else (sub-documents, dates, ObjectIds, Missing, …) is left to upstream's BsonEncoder, and the
 * caller falls back to it.
 *
 * Why: every commit rewrites each changed page whole, and a page of an index holds up to
 * {@code --keys-per-page} keys; encoding each key through a Document, a Netty buffer and a copy
 * was ~40 % of the server's CPU during concurrent inserts (JFR, 100 000 nodes). The bytes are the
 * same as BsonEncoder's for these types, so files written either way read the same.
 */
final class KeyBson {

    private KeyBson() {
    }

    private static final byte DOUBLE = 0x01;
    private static final byte STRING = 0x02;
    private static final byte ARRAY = 0x04;
    private static final byte BOOLEAN = 0x08;
    private static final byte NULL = 0x0A;
    private static final byte INT32 = 0x10;
    private static final byte INT64 = 0x12;

    /** A little-endian scratch buffer per thread (pages are serialized on several threads). */
    private static final class Out {
        byte[] buf = new byte[256];
        int len;

        void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        void put(byte b) {
            ensure(1);
            buf[len++] = b;
        }

        void putInt(int v) {
            ensure(4);
            buf[len++] = (byte) v;
            buf[len++] = (byte) (v >>> 8);
            buf[len++] = (byte) (v >>> 16);
            buf[len++] = (byte) (v >>> 24);
        }

        void putIntAt(int at, int v) {
            buf[at] = (byte) v;
            buf[at + 1] = (byte) (v >>> 8);
            buf[at + 2] = (byte) (v >>> 16);
            buf[at + 3] = (byte) (v >>> 24);
        }

        void putLong(long v) {
            putInt((int) v);
            putInt((int) (v >>> 32));
        }

        void put(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buf, len, bytes.length);
            len += bytes.length;
        }

        /** An element name: ASCII only here ("v", "k" and array indexes). */
        void name(String name) {
            ensure(name.length() + 1);
            for (int i = 0; i < name.length(); i++) {
                buf[len++] = (byte) name.charAt(i);
            }
            buf[len++] = 0;
        }
    }

    private static final ThreadLocal<Out> OUT = ThreadLocal.withInitial(Out::new);

    static boolean simple(Object value) {
        return value == null || value instanceof String || value instanceof Integer || value instanceof Long
            || value instanceof Double || value instanceof Boolean;
    }

    static boolean allSimple(Object[] values) {
        for (Object v : values) {
            if (!simple(v)) {
                return false;
            }
        }
        return true;
    }

    /** Writes {@code {name: value}}; the value must be {@link #simple}. */
    static void writeSingle(WriteBuffer buff, String name, Object value) {
        Out out = OUT.get();
        out.len = 0;
        int start = beginDocument(out);
        element(out, name, value);
        endDocument(out, start);
        buff.put(out.buf, 0, out.len);
    }

    /** Writes {@code {name: [values…]}}; every value must be {@link #simple}. */
    static void writeArray(WriteBuffer buff, String name, Object[] values) {
        Out out = OUT.get();
        out.len = 0;
        int start = beginDocument(out);
        out.put(ARRAY);
        out.name(name);
        int array = beginDocument(out);
        for (int i = 0; i < values.length; i++) {
            element(out, Integer.toString(i), values[i]);
        }
        endDocument(out, array);
        endDocument(out, start);
        buff.put(out.buf, 0, out.len);
    }

    private static int beginDocument(Out out) {
        int start = out.len;
        out.putInt(0); // length, patched by endDocument
        return start;
    }

    private static void endDocument(Out out, int start) {
        out.put((byte) 0);
        out.putIntAt(start, out.len - start);
    }

    private static void element(Out out, String name, Object value) {
        if (value == null) {
            out.put(NULL);
            out.name(name);
        } else if (value instanceof String) {
            byte[] utf8 = ((String) value).getBytes(StandardCharsets.UTF_8);
            out.put(STRING);
            out.name(name);
            out.putInt(utf8.length + 1);
            out.put(utf8);
            out.put((byte) 0);
        } else if (value instanceof Integer) {
            out.put(INT32);
            out.name(name);
            out.putInt((Integer) value);
        } else if (value instanceof Long) {
            out.put(INT64);
            out.name(name);
            out.putLong((Long) value);
        } else if (value instanceof Double) {
            out.put(DOUBLE);
            out.name(name);
            out.putLong(Double.doubleToRawLongBits((Double) value));
        } else if (value instanceof Boolean) {
            out.put(BOOLEAN);
            out.name(name);
            out.put((byte) (((Boolean) value) ? 1 : 0));
        } else {
            throw new IllegalArgumentException("not a simple key value: " + value.getClass());
        }
    }
}
