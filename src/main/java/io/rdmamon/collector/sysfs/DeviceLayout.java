package io.rdmamon.collector.sysfs;

import java.nio.file.Path;
import java.util.List;

/**
 * What a device's folders held at its last scan: the resolved path of every file a pass reads, and the attributes
 * that change only with the link or the driver (rate, link layer, identity). A pass reads the counters and the port
 * states through it without listing a folder or resolving a link; see {@link SysfsRdmaReader} for when it is redone.
 *
 * @param scannedNanos the monotonic time of the scan
 * @param deviceHw     device-level {@code hw_counters/} files
 */
record DeviceLayout(long scannedNanos, List<PortLayout> ports, CounterFiles deviceHw, String nodeGuid, String fwVer,
                    String boardId, String hcaType) {

    /**
     * A port's files and static attributes.
     *
     * @param state     the {@code state} text at the scan: a pass that reads another one scans again, since a link
     *                  that went down and up may have come back at another rate
     * @param physState the {@code phys_state} text at the scan, likewise
     */
    record PortLayout(int port, SysfsFiles.Attribute stateFile, SysfsFiles.Attribute physStateFile, String state,
                      String physState, String linkLayer, String rateText, Long rateBytesPerSec,
                      CounterFiles counters, CounterFiles countersExt, CounterFiles hw) {
    }
}
