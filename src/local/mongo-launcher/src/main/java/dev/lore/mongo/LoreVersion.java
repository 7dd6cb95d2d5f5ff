package dev.lore.mongo;

import java.util.List;

import de.bwaldvogel.mongo.MongoVersion;

/**
 * The server version this launcher reports in buildInfo, hello/isMaster and serverStatus.
 * mongo-java-server 1.47 reports at most 5.0 / wire version 8; the Node driver 7.x refuses
 * wire versions below 9 (MIN_SUPPORTED_WIRE_VERSION), so we report MongoDB 7.0 (wire 21).
 */
final class LoreVersion implements MongoVersion {

    static final String DEFAULT_VERSION = "7.0.0";
    static final int DEFAULT_WIRE_VERSION = 21;

    private final List<Integer> versionArray;
    private final int wireVersion;

    LoreVersion(String version, int wireVersion) {
        String[] parts = version.split("\\.");
        if (parts.length < 2 || parts.length > 4) {
            throw new IllegalArgumentException("bad --server-version '" + version + "', expected e.g. 7.0.0");
        }
        Integer[] numbers = new Integer[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                numbers[i] = Integer.valueOf(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad --server-version '" + version + "', expected e.g. 7.0.0");
            }
        }
        this.versionArray = List.of(numbers);
        this.wireVersion = wireVersion;
    }

    @Override
    public List<Integer> getVersionArray() {
        return versionArray;
    }

    @Override
    public int getWireVersion() {
        return wireVersion;
    }
}
