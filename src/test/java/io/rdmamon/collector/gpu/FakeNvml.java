package io.rdmamon.collector.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for NVML's library: GPUs that read as set, a driver that appears after some opens, a call that hangs as
 * one blocked in the kernel does (no interrupt ends it, only {@link #release}), a crash inside the binding, a GPU
 * that is lost. Counts the calls outstanding at once.
 */
final class FakeNvml implements Nvml {
    final List<String> uuids;
    volatile int failingOpens;
    volatile boolean unloadable;
    volatile Double utilization = 98.0;
    volatile List<String> mig = List.of();
    volatile List<Long> pids = List.of(4242L);
    volatile String lostGpu;
    volatile boolean crashNextRead;
    private volatile CountDownLatch hang;
    final AtomicInteger opens = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    final AtomicInteger outstanding = new AtomicInteger();
    final AtomicInteger mostOutstanding = new AtomicInteger();
    final List<String> callingThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

    FakeNvml(String... uuids) {
        this.uuids = List.of(uuids);
    }

    /** From now on every call blocks, uninterruptibly, until {@link #release}. */
    void hang() {
        hang = new CountDownLatch(1);
    }

    void release() {
        CountDownLatch h = hang;
        hang = null;
        if (h != null) {
            h.countDown();
        }
    }

    private void enter() {
        int now = outstanding.incrementAndGet();
        mostOutstanding.accumulateAndGet(now, Math::max);
        String thread = Thread.currentThread().getName();
        if (!callingThreads.contains(thread)) {
            callingThreads.add(thread);
        }
        CountDownLatch h = hang;
        while (h != null && h.getCount() > 0) {
            try {
                h.await();
            } catch (InterruptedException e) {
                // a call in the kernel does not notice
            }
        }
    }

    private void leave() {
        outstanding.decrementAndGet();
    }

    @Override
    public String load() {
        return unloadable ? "cannot load libnvidia-ml.so.1: not found" : null;
    }

    @Override
    public List<String> open() throws NvmlException {
        enter();
        try {
            opens.incrementAndGet();
            if (unloadable) {
                throw new NvmlException(NvmlException.UNLOADABLE, "cannot load libnvidia-ml.so.1: not found");
            }
            if (failingOpens > 0) {
                failingOpens--;
                throw new NvmlException(NvmlException.DRIVER_NOT_LOADED, "nvmlInit: Driver Not Loaded (9)");
            }
            return uuids;
        } finally {
            leave();
        }
    }

    @Override
    public GpuReading read(int index, String uuid, List<String> migDevices) {
        enter();
        try {
            if (crashNextRead) {
                crashNextRead = false;
                throw new IllegalStateException("invalid memory access");
            }
            if (uuid.equals(lostGpu)) {
                return new GpuReading(index, uuid, null, null, null, null, migDevices, "GPU is lost");
            }
            return new GpuReading(index, uuid, mig.isEmpty() ? utilization : null, mig.isEmpty() ? 2.0 : null, 150.0,
                    1980.0, migDevices, null);
        } finally {
            leave();
        }
    }

    @Override
    public List<Long> processes(int index) throws NvmlException {
        enter();
        try {
            if (uuids.get(index).equals(lostGpu)) {
                throw new NvmlException(NvmlException.GPU_IS_LOST, "GPU is lost (15)");
            }
            return new ArrayList<>(pids);
        } finally {
            leave();
        }
    }

    @Override
    public List<String> migDevices(int index) {
        enter();
        try {
            return mig;
        } finally {
            leave();
        }
    }

    @Override
    public void close() {
        closes.incrementAndGet();
    }
}
