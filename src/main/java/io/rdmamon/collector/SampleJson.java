package io.rdmamon.collector;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The collector's records as JSON, written with jackson-core's streaming generator (the same {@link JsonFactory}
 * defaults and the same UTF-8 writer as {@link io.rdmamon.model.Json}'s mapper) into one reused buffer: the same bytes
 * as {@link io.rdmamon.model.Json} writes for {@link PortSample}, {@link HostIfaceSample} and {@link GpuSample} — fields in the order of
 * their {@code @JsonPropertyOrder}, {@code null} written out, an empty {@code errorClasses} left out — which {@code
 * SampleJsonTest} checks against the mapper itself. Why not the mapper: on the node agent, Jackson's databind costs
 * more CPU per record than reading the counters behind it, and its classes cost start-up time and metaspace (about
 * 7 MiB resident) in every GPU node's collector; jackson-core alone is a fraction of that. Not thread-safe: one per
 * sampling thread.
 */
public final class SampleJson {
    private static final JsonFactory FACTORY = new JsonFactoryBuilder().rootValueSeparator((String) null).build();

    private static final SerializedString V = new SerializedString("v");
    private static final SerializedString NODE = new SerializedString("node");
    private static final SerializedString DEVICE = new SerializedString("device");
    private static final SerializedString PORT = new SerializedString("port");
    private static final SerializedString IFACE = new SerializedString("iface");
    private static final SerializedString TS = new SerializedString("ts");
    private static final SerializedString INTERVAL_MS = new SerializedString("intervalMs");
    private static final SerializedString SOURCE = new SerializedString("source");
    private static final SerializedString STATE = new SerializedString("state");
    private static final SerializedString PHYS_STATE = new SerializedString("physState");
    private static final SerializedString LINK_LAYER = new SerializedString("linkLayer");
    private static final SerializedString RATE_BYTES = new SerializedString("rateBytesPerSec");
    private static final SerializedString TX_BYTES = new SerializedString("txBytesPerSec");
    private static final SerializedString RX_BYTES = new SerializedString("rxBytesPerSec");
    private static final SerializedString TX_PACKETS = new SerializedString("txPacketsPerSec");
    private static final SerializedString RX_PACKETS = new SerializedString("rxPacketsPerSec");
    private static final SerializedString ERRORS = new SerializedString("errors");
    private static final SerializedString ERROR_CLASSES = new SerializedString("errorClasses");
    private static final SerializedString GPU = new SerializedString("gpu");
    private static final SerializedString UUID = new SerializedString("uuid");
    private static final SerializedString UTILIZATION = new SerializedString("utilizationPercent");
    private static final SerializedString MEMORY_UTILIZATION = new SerializedString("memoryUtilizationPercent");
    private static final SerializedString POWER = new SerializedString("powerWatts");
    private static final SerializedString SM_CLOCK = new SerializedString("smClockMHz");
    private static final SerializedString PROCESSES = new SerializedString("processes");

    /** Each record's bytes, emptied before the next; the generator flushes into it at the end of a record. */
    private final Buffer out = new Buffer();
    /**
     * One generator for every record: records are root values of one stream, with no separator between them. Replaced
     * after a record that failed half-way, whose object the generator would otherwise still be in.
     */
    private JsonGenerator gen = newGenerator();

    private JsonGenerator newGenerator() {
        try {
            return FACTORY.createGenerator(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The record of {@code topic rdma.port-samples}. */
    public byte[] portSample(PortSample s) {
        return record(() -> {
            gen.writeFieldName(V);
            gen.writeNumber(s.v());
            gen.writeFieldName(NODE);
            gen.writeString(s.node());
            gen.writeFieldName(DEVICE);
            gen.writeString(s.device());
            gen.writeFieldName(PORT);
            gen.writeNumber(s.port());
            gen.writeFieldName(TS);
            gen.writeNumber(s.ts());
            gen.writeFieldName(INTERVAL_MS);
            gen.writeNumber(s.intervalMs());
            gen.writeFieldName(SOURCE);
            gen.writeString(s.source());
            gen.writeFieldName(STATE);
            gen.writeString(s.state());
            gen.writeFieldName(PHYS_STATE);
            gen.writeString(s.physState());
            gen.writeFieldName(LINK_LAYER);
            gen.writeString(s.linkLayer());
            gen.writeFieldName(RATE_BYTES);
            number(s.rateBytesPerSec());
            ratesAndErrors(s.txBytesPerSec(), s.rxBytesPerSec(), s.txPacketsPerSec(), s.rxPacketsPerSec(), s.errors());
            if (!s.errorClasses().isEmpty()) {
                gen.writeFieldName(ERROR_CLASSES);
                counts(s.errorClasses());
            }
        });
    }

    /** The record of {@code topic rdma.host-samples}. */
    public byte[] hostSample(HostIfaceSample s) {
        return record(() -> {
            gen.writeFieldName(V);
            gen.writeNumber(s.v());
            gen.writeFieldName(NODE);
            gen.writeString(s.node());
            gen.writeFieldName(IFACE);
            gen.writeString(s.iface());
            gen.writeFieldName(TS);
            gen.writeNumber(s.ts());
            gen.writeFieldName(INTERVAL_MS);
            gen.writeNumber(s.intervalMs());
            ratesAndErrors(s.txBytesPerSec(), s.rxBytesPerSec(), s.txPacketsPerSec(), s.rxPacketsPerSec(), s.errors());
        });
    }

    /** The record of {@code topic rdma.gpu-samples}. */
    public byte[] gpuSample(GpuSample s) {
        return record(() -> {
            gen.writeFieldName(V);
            gen.writeNumber(s.v());
            gen.writeFieldName(NODE);
            gen.writeString(s.node());
            gen.writeFieldName(GPU);
            gen.writeNumber(s.gpu());
            gen.writeFieldName(UUID);
            gen.writeString(s.uuid());
            gen.writeFieldName(TS);
            gen.writeNumber(s.ts());
            gen.writeFieldName(INTERVAL_MS);
            gen.writeNumber(s.intervalMs());
            gen.writeFieldName(UTILIZATION);
            number(s.utilizationPercent());
            gen.writeFieldName(MEMORY_UTILIZATION);
            number(s.memoryUtilizationPercent());
            gen.writeFieldName(POWER);
            number(s.powerWatts());
            gen.writeFieldName(SM_CLOCK);
            number(s.smClockMHz());
            gen.writeFieldName(PROCESSES);
            if (s.processes() == null) {
                gen.writeNull();
            } else {
                gen.writeNumber(s.processes().intValue());
            }
        });
    }

    private interface Fields {
        void write() throws IOException;
    }

    /**
     * One JSON object with {@code fields} into the reused buffer. A record that fails half-way leaves the generator
     * inside its object, so the generator is replaced before the failure goes on.
     */
    private byte[] record(Fields fields) {
        try {
            out.reset();
            gen.writeStartObject();
            fields.write();
            return end();
        } catch (IOException e) {
            gen = newGenerator();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            gen = newGenerator();
            throw e;
        }
    }

    /** The fields both records end with, in the contract's order. */
    private void ratesAndErrors(Double tx, Double rx, Double txPackets, Double rxPackets, Map<String, Long> errors)
            throws IOException {
        gen.writeFieldName(TX_BYTES);
        number(tx);
        gen.writeFieldName(RX_BYTES);
        number(rx);
        gen.writeFieldName(TX_PACKETS);
        number(txPackets);
        gen.writeFieldName(RX_PACKETS);
        number(rxPackets);
        gen.writeFieldName(ERRORS);
        counts(errors);
    }

    private byte[] end() throws IOException {
        gen.writeEndObject();
        gen.flush();
        return out.toByteArray();
    }

    private void counts(Map<String, Long> counts) throws IOException {
        gen.writeStartObject();
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            gen.writeFieldName(e.getKey());
            number(e.getValue());
        }
        gen.writeEndObject();
    }

    private void number(Long value) throws IOException {
        if (value == null) {
            gen.writeNull();
        } else {
            gen.writeNumber(value.longValue());
        }
    }

    /** As the mapper: a double through the generator (NaN and the infinities quoted, by the factory's default). */
    private void number(Double value) throws IOException {
        if (value == null) {
            gen.writeNull();
        } else {
            gen.writeNumber(value.doubleValue());
        }
    }

    /** A byte buffer kept from record to record; {@code flush()} and {@code close()} do nothing. */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(1024);
        }
    }
}
