package dev.lore.mongo;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.h2.mvstore.WriteBuffer;

/**
 * Writes the small BSON documents that keys are stored as ({@code {"v": x}}, {@code {"k": [x, …]}},
 * see {@link StoreTypes}) straight into the page buffer, and reads them back, when every value is
 * a string, a 32- or 64-bit integer, a double, a boolean or null: the types Lore's keys and ids are
 * made of. Anything else (sub-documents, dates, ObjectIds, Missing, …) is left to upstream's
 * BsonEncoder and BsonDecoder.
 *
 * Why: every commit rewrites each changed page whole, and a page of an index holds up to
 * {@code --keys-per-page} keys; encoding each key through a Document, a Netty buffer and a copy
 * was over a third of the server's samples during concurrent inserts (JFR, 100 000 nodes). The
 * bytes are the same as BsonEncoder's for these types, so files written either way read the same.
 * Reading is the mirror image: a page read from disk decodes every key on it (recall's lookups at
 * 100 000 nodes miss the page cache often), and a key of any other type goes to BsonDecoder.
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

    /** A thread's scratch buffer is given up after a key larger than this (keys are small). */
    private static final int KEEP_BYTES = 64 * 1024;

    private static void flush(WriteBuffer buff, Out out) {
        buff.put(out.buf, 0, out.len);
        if (out.buf.length > KEEP_BYTES) {
            OUT.remove();
        }
    }

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
        flush(buff, out);
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
        flush(buff, out);
    }

    /** What {@link #readSingle} answers when the value is not {@link #simple}. */
    static final Object NOT_SIMPLE = new Object();

    /**
     * The value of a one-field document at the buffer's position, the position moved past it; or
     * {@link #NOT_SIMPLE} with the position unchanged.
     */
    static Object readSingle(ByteBuffer buff) {
        int start = buff.position();
        int end = start + Integer.reverseBytes(buff.getInt());
        byte type = buff.get();
        skipName(buff);
        Object value = readElement(buff, type);
        if (value == NOT_SIMPLE || buff.get() != 0 || buff.position() != end) {
            buff.position(start);
            return NOT_SIMPLE;
        }
        return value;
    }

    /**
     * The values of a one-field document holding an array ({@code {"k": [...]}}) at the buffer's
     * position, the position moved past it; or null with the position unchanged.
     */
    static Object[] readArray(ByteBuffer buff) {
        int start = buff.position();
        int end = start + Integer.reverseBytes(buff.getInt());
        if (buff.get() != ARRAY) {
            buff.position(start);
            return null;
        }
        skipName(buff);
        int arrayEnd = buff.position() + Integer.reverseBytes(buff.getInt());
        Object[] values = new Object[4];
        int n = 0;
        for (byte type = buff.get(); type != 0; type = buff.get()) {
            skipName(buff);
            Object value = readElement(buff, type);
            if (value == NOT_SIMPLE) {
                buff.position(start);
                return null;
            }
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = value;
        }
        if (buff.position() != arrayEnd || buff.get() != 0 || buff.position() != end) {
            buff.position(start);
            return null;
        }
        return Arrays.copyOf(values, n);
    }

    private static void skipName(ByteBuffer buff) {
        while (buff.get() != 0) {
            // element names are not needed: "v", "k" and array indexes in order
        }
    }

    private static Object readElement(ByteBuffer buff, byte type) {
        switch (type) {
            case NULL:
                return null;
            case STRING: {
                int length = Integer.reverseBytes(buff.getInt());
                byte[] utf8 = new byte[length - 1];
                buff.get(utf8);
                buff.get(); // the terminating 0
                return new String(utf8, StandardCharsets.UTF_8);
            }
            case INT32:
                return Integer.valueOf(Integer.reverseBytes(buff.getInt()));
            case INT64:
                return Long.valueOf(Long.reverseBytes(buff.getLong()));
            case DOUBLE:
                return Double.valueOf(Double.longBitsToDouble(Long.reverseBytes(buff.getLong())));
            case BOOLEAN:
                return Boolean.valueOf(buff.get() != 0);
            default:
                return NOT_SIMPLE;
        }
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
