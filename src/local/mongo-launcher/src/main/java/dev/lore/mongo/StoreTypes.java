package dev.lore.mongo;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import org.h2.mvstore.DataUtils;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;

import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * MVStore data types for Lore's store format 1: documents, _id keys, unique-index keys and
 * secondary-index keys are stored as BSON instead of upstream's Java serialization
 * (ObjectDataType), and keys compare with MongoDB's value order instead of serializing both sides
 * on every comparison. Measured upstream: Java serialization dominated commit time and every
 * unique-index lookup (KeyValue is not Comparable, so ObjectDataType compares serialized bytes).
 *
 * A file written with these types cannot be read with ObjectDataType and vice versa; the format is
 * recorded in the map "lore.meta" (see {@link Main}).
 */
final class StoreTypes {

    static final int FORMAT = 1;

    private StoreTypes() {
    }

    private static final byte TAG_MISSING = 0;
    private static final byte TAG_VALUE = 1;

    private static final ValueComparator ORDER = ValueComparator.ascWithoutListHandling();

    static int compareValues(Object a, Object b) {
        if (a instanceof String && b instanceof String) {
            // What ValueComparator does for two strings, after walking its type-order list for both
            // (most keys are strings: ids, tenants, scopes; B-tree searches compare them all the time).
            return ((String) a).compareTo((String) b);
        }
        try {
            return ORDER.compare(a, b);
        } catch (RuntimeException e) {
            // types ValueComparator cannot order (e.g. JavaScript code): a stable byte order
            return Arrays.compare(bson(new Document("v", a)), bson(new Document("v", b)));
        }
    }

    static byte[] bson(Document document) {
        ByteBuf buf = Unpooled.buffer(256);
        try {
            BsonEncoder.encodeDocument(document, buf);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    static void writeDocument(WriteBuffer buff, Document document) {
        buff.put(bson(document));
    }

    static Document decode(byte[] bson) {
        return BsonDecoder.decodeBson(Unpooled.wrappedBuffer(bson));
    }

    /**
     * Only the fields of a stored document that {@code fields} names, in stored order, each decoded
     * as {@link #decode} would; an embedded document with a subtree in {@code fields} is decoded the
     * same way, keeping only the subtree's fields (an array or any other value there is decoded
     * whole). Everything else is stepped over by its BSON length, without building its value. Null
     * when the document holds a type this cannot step over, or a walk does not end exactly at its
     * document's end (the caller then decodes it whole).
     */
    static Document decodeFields(byte[] bson, FieldTree fields) {
        try {
            Document document = decodeFields(Unpooled.wrappedBuffer(bson), fields);
            if (document != null) {
                PARTIAL_DECODES.increment();
                return document;
            }
        } catch (RuntimeException e) {
            // a length that leads past the end, or a value upstream cannot decode: decode it whole
        }
        PARTIAL_FALLBACKS.increment();
        return null;
    }

    /** One BSON document that fills {@code buf} exactly; null when the walk loses its place. */
    private static Document decodeFields(ByteBuf buf, FieldTree fields) {
        buf.skipBytes(4); // the length: the buffer holds exactly this document
        Document document = new Document();
        for (;;) {
            byte type = buf.readByte();
            if (type == 0) {
                return buf.isReadable() ? null : document; // a terminator before the end: lost
            }
            String key = BsonDecoder.decodeCString(buf);
            if (!fields.contains(key)) {
                if (!skipValue(type, buf)) {
                    return null;
                }
                continue;
            }
            FieldTree sub = fields.child(key);
            if (sub == null || type != 0x03) {
                document.put(key, BsonDecoder.decodeValue(type, buf));
                continue;
            }
            int length = buf.getIntLE(buf.readerIndex());
            Document embedded = decodeFields(buf.readSlice(length), sub);
            if (embedded == null) {
                return null;
            }
            document.put(key, embedded);
        }
    }

    /** Documents read through {@link #decodeFields}, and those it handed back to a whole decode (loreStatus). */
    static final LongAdder PARTIAL_DECODES = new LongAdder();
    static final LongAdder PARTIAL_FALLBACKS = new LongAdder();

    /** Steps over one value of the given BSON type; false for a type it does not know. */
    private static boolean skipValue(byte type, ByteBuf buf) {
        switch (type) {
            case 0x01: // double
            case 0x09: // UTC datetime
            case 0x11: // timestamp
            case 0x12: // int64
                buf.skipBytes(8);
                return true;
            case 0x02: // string
            case 0x0D: // JavaScript code
            case 0x0E: // symbol
                buf.skipBytes(buf.readIntLE());
                return true;
            case 0x03: // document
            case 0x04: // array
            case 0x0F: // code with scope
                buf.skipBytes(buf.getIntLE(buf.readerIndex())); // the length counts itself
                return true;
            case 0x05: // binary: length, subtype, bytes
                buf.skipBytes(buf.readIntLE() + 1);
                return true;
            case 0x06: // undefined
            case 0x0A: // null
            case 0x7F: // max key
            case (byte) 0xFF: // min key
                return true;
            case 0x07: // ObjectId
                buf.skipBytes(12);
                return true;
            case 0x08: // boolean
                buf.skipBytes(1);
                return true;
            case 0x10: // int32
                buf.skipBytes(4);
                return true;
            case 0x13: // decimal128
                buf.skipBytes(16);
                return true;
            case 0x0B: // regular expression: pattern and options, two C strings
                buf.skipBytes(buf.bytesBefore((byte) 0) + 1);
                buf.skipBytes(buf.bytesBefore((byte) 0) + 1);
                return true;
            case 0x0C: // DBPointer: string, ObjectId
                buf.skipBytes(buf.readIntLE() + 12);
                return true;
            default:
                return false;
        }
    }

    /** Length of the BSON document at the buffer's position (its little-endian length prefix). */
    static int bsonLength(ByteBuffer buff) {
        return Integer.reverseBytes(buff.getInt(buff.position()));
    }

    static Document readDocument(ByteBuffer buff) {
        int length = bsonLength(buff);
        ByteBuffer slice = buff.slice();
        slice.limit(length);
        buff.position(buff.position() + length);
        return BsonDecoder.decodeBson(Unpooled.wrappedBuffer(slice));
    }

    /** Rough heap size of a value, for MVStore's cache accounting. */
    static int memory(Object value) {
        if (value == null || value instanceof Missing || value instanceof Boolean) {
            return 16;
        }
        if (value instanceof String) {
            return 40 + 2 * ((String) value).length();
        }
        if (value instanceof Number) {
            return 24;
        }
        if (value instanceof Map) {
            int size = 64;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                size += 48 + memory(e.getKey()) + memory(e.getValue());
            }
            return size;
        }
        if (value instanceof Collection) {
            int size = 48;
            for (Object element : (Collection<?>) value) {
                size += 8 + memory(element);
            }
            return size;
        }
        if (value instanceof Object[]) {
            int size = 24;
            for (Object element : (Object[]) value) {
                size += 8 + memory(element);
            }
            return size;
        }
        return 48;
    }

    /** Any single BSON value, or Missing (the key of a document whose _id is absent/null). */
    static void writeValue(WriteBuffer buff, Object value) {
        if (value instanceof Missing) {
            buff.put(TAG_MISSING);
        } else {
            buff.put(TAG_VALUE);
            if (KeyBson.simple(value)) {
                KeyBson.writeSingle(buff, "v", value);
            } else {
                writeDocument(buff, new Document("v", value));
            }
        }
    }

    /** The values of a key as {@code {"k": [values…]}}. */
    static void writeKeyValues(WriteBuffer buff, Object[] values) {
        if (KeyBson.allSimple(values)) {
            KeyBson.writeArray(buff, "k", values);
        } else {
            writeDocument(buff, new Document("k", Arrays.asList(values)));
        }
    }

    static Object readValue(ByteBuffer buff) {
        byte tag = buff.get();
        if (tag == TAG_MISSING) {
            return Missing.getInstance();
        }
        Object value = KeyBson.readSingle(buff);
        return value != KeyBson.NOT_SIMPLE ? value : readDocument(buff).get("v");
    }

    /** The values of a key stored as {@code {"k": [values…]}} (see {@link #writeKeyValues}). */
    static Object[] readKeyValues(ByteBuffer buff) {
        Object[] values = KeyBson.readArray(buff);
        return values != null ? values : ((List<?>) readDocument(buff).get("k")).toArray();
    }

    /**
     * Documents (values of a collection's data map), kept as their BSON ({@link StoredDocument}):
     * a page write copies the bytes, a page read slices them, and nothing is decoded until a
     * document is asked for. Not comparable.
     */
    static final class StoredDocumentType extends BasicDataType<StoredDocument> {
        static final StoredDocumentType INSTANCE = new StoredDocumentType();

        /**
         * Fixed from the BSON size, so the page cache's accounting does not change when a document
         * is decoded: the bytes plus a decoded document (a few times its BSON as Java objects).
         */
        @Override
        public int getMemory(StoredDocument obj) {
            return 64 + 3 * obj.size();
        }

        @Override
        public void write(WriteBuffer buff, StoredDocument obj) {
            buff.put(obj.bson);
        }

        @Override
        public StoredDocument read(ByteBuffer buff) {
            byte[] bson = new byte[bsonLength(buff)];
            buff.get(bson);
            return StoredDocument.fromBson(bson);
        }

        @Override
        public StoredDocument[] createStorage(int size) {
            return new StoredDocument[size];
        }
    }

    /** _id values: keys of a data map, values (positions) of unique-index maps. */
    static final class ValueType extends BasicDataType<Object> {
        static final ValueType INSTANCE = new ValueType();

        @Override
        public int getMemory(Object obj) {
            return memory(obj);
        }

        @Override
        public void write(WriteBuffer buff, Object obj) {
            writeValue(buff, obj);
        }

        @Override
        public Object read(ByteBuffer buff) {
            return readValue(buff);
        }

        @Override
        public int compare(Object a, Object b) {
            return compareValues(a, b);
        }

        @Override
        public Object[] createStorage(int size) {
            return new Object[size];
        }
    }

    /** Keys of unique-index maps: the normalized key values. */
    static final class KeyValueType extends BasicDataType<KeyValue> {
        static final KeyValueType INSTANCE = new KeyValueType();

        @Override
        public int getMemory(KeyValue obj) {
            int size = 48;
            for (Object value : obj) {
                size += 8 + memory(value);
            }
            return size;
        }

        @Override
        public void write(WriteBuffer buff, KeyValue obj) {
            Object[] values = new Object[obj.size()];
            int i = 0;
            for (Object value : obj) {
                values[i++] = value;
            }
            writeKeyValues(buff, values);
        }

        @Override
        public KeyValue read(ByteBuffer buff) {
            return new KeyValue(Arrays.asList(readKeyValues(buff)));
        }

        @Override
        public int compare(KeyValue a, KeyValue b) {
            int n = Math.min(a.size(), b.size());
            for (int i = 0; i < n; i++) {
                int c = compareValues(a.get(i), b.get(i));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(a.size(), b.size());
        }

        @Override
        public KeyValue[] createStorage(int size) {
            return new KeyValue[size];
        }
    }

    /** Keys of secondary-index maps. */
    static final class IndexEntryKeyType extends BasicDataType<IndexEntryKey> {
        static final IndexEntryKeyType INSTANCE = new IndexEntryKeyType();

        @Override
        public int getMemory(IndexEntryKey obj) {
            return 32 + memory(obj.values) + memory(obj.position);
        }

        @Override
        public void write(WriteBuffer buff, IndexEntryKey obj) {
            if (obj.bound != 0) {
                throw DataUtils.newUnsupportedOperationException("index bounds are never stored");
            }
            writeKeyValues(buff, obj.values);
            writeValue(buff, obj.position);
        }

        @Override
        public IndexEntryKey read(ByteBuffer buff) {
            Object[] values = readKeyValues(buff);
            Object position = readValue(buff);
            return new IndexEntryKey(values, position);
        }

        @Override
        public int compare(IndexEntryKey a, IndexEntryKey b) {
            return a.compareTo(b);
        }

        @Override
        public IndexEntryKey[] createStorage(int size) {
            return new IndexEntryKey[size];
        }
    }
}
