package io.rdmamon.collector.sysfs;

import io.rdmamon.model.PortSample;

import java.util.List;
import java.util.Set;

/**
 * What one sampling pass over sysfs found.
 *
 * @param samples            one record per port of every included device, in device then port order
 * @param devices            the included devices present in this pass
 * @param devicesWithTraffic devices with at least one port whose byte counters sysfs gives (known values); for the
 *                           others (eRDMA without hw_counters traffic, drivers without PMA) only eadm can tell
 * @param readings           the raw readings behind the samples (byte totals, firmware, ...), for diagnostics
 */
public record SysfsPass(List<PortSample> samples, Set<String> devices, Set<String> devicesWithTraffic,
                        List<DeviceReading> readings) {

    public SysfsPass {
        samples = List.copyOf(samples);
        devices = Set.copyOf(devices);
        devicesWithTraffic = Set.copyOf(devicesWithTraffic);
        readings = List.copyOf(readings);
    }
}
