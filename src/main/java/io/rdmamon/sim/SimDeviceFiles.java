package io.rdmamon.sim;

import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The non-counter files of a simulated device and port, with the values and formats real drivers print. */
final class SimDeviceFiles {
    private SimDeviceFiles() {
    }

    /**
     * Device identity. eRDMA devices get neither {@code board_id} nor {@code hca_type}, as with the real driver: the
     * reader must cope (the gap that hid all InfiniBand metrics in node_exporter 1.5).
     */
    static void writeIdentity(SimFiles files, Path dir, DeviceKind kind, int slot) {
        String guid = String.format("b8ce:f603:00%02x:%04x", slot, 0x1a2b + slot);
        files.write(dir.resolve("node_guid"), guid + "\n");
        files.write(dir.resolve("sys_image_guid"), guid + "\n");
        files.write(dir.resolve("node_type"), "1: CA\n");
        files.write(dir.resolve("hw_rev"), "0x0\n");
        if (kind == DeviceKind.MLX5) {
            files.write(dir.resolve("fw_ver"), "28.39.1002\n");
            files.write(dir.resolve("board_id"), "MT_0000000838\n");
            files.write(dir.resolve("hca_type"), "MT4129\n");
        } else {
            files.write(dir.resolve("fw_ver"), "0.2.38\n");
        }
    }

    static void writePortAttributes(SimFiles files, Path dir, DeviceKind kind, String linkLayer, int slot,
                                    int port) {
        boolean infiniband = SysfsTreeWriter.INFINIBAND.equals(linkLayer);
        files.write(dir.resolve("state"), "4: ACTIVE\n");
        files.write(dir.resolve("phys_state"), "5: LinkUp\n");
        files.write(dir.resolve("rate"), defaultRate(kind, infiniband) + "\n");
        files.write(dir.resolve("link_layer"), linkLayer + "\n");
        files.write(dir.resolve("lid"), infiniband ? String.format("0x%x\n", slot * 16 + port) : "0x0\n");
        files.write(dir.resolve("sm_lid"), infiniband ? "0x1\n" : "0x0\n");
        files.write(dir.resolve("sm_sl"), "0\n");
        files.write(dir.resolve("lid_mask_count"), "0\n");
        files.write(dir.resolve("cap_mask"), infiniband ? "0xa751e848\n" : "0x00010000\n");
        files.write(dir.resolve("hw_counters").resolve("lifespan"), "10\n");
    }

    /** Every counter file of a port folder (or, for the out-of-tree eRDMA driver, of the device folder). */
    static List<Path> counterFiles(Path dir, DeviceKind kind, String linkLayer) {
        List<Path> files = new ArrayList<>();
        Path hw = dir.resolve("hw_counters");
        switch (kind) {
            case MLX5 -> {
                SimCounterNames.CLASSIC.forEach(name -> files.add(dir.resolve("counters").resolve(name)));
                SimCounterNames.MLX5_HW.forEach(name -> files.add(hw.resolve(name)));
                if (SysfsTreeWriter.ETHERNET.equals(linkLayer)) {
                    SimCounterNames.MLX5_HW_ROCE_CC.forEach(name -> files.add(hw.resolve(name)));
                }
            }
            case ERDMA_UPSTREAM -> SimCounterNames.ERDMA_UPSTREAM.forEach(name -> files.add(hw.resolve(name)));
            case ERDMA_OUT_OF_TREE -> SimCounterNames.ERDMA_OUT_OF_TREE.forEach(name -> files.add(hw.resolve(name)));
        }
        return files;
    }

    private static String defaultRate(DeviceKind kind, boolean infiniband) {
        if (kind != DeviceKind.MLX5) {
            return "25 Gb/sec (1X EDR)";
        }
        return infiniband ? "200 Gb/sec (4X HDR)" : "100 Gb/sec (4X EDR)";
    }
}
