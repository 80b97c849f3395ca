package io.rdmamon.streams;

import io.rdmamon.model.DeadLetter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.JsonSerde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Reads an input topic as raw bytes and decodes it: good records continue, poison records (not JSON, unknown
 * {@code v}, missing fields, values outside the contract) go to the dead-letter topic with the reason, counted as
 * {@code rdmamon_streams_dead_letters_total{topic,reason}}. Nothing in the topology ever sees a record it cannot use,
 * so no deserialization exception can stop the app. Kafka Streams knows every input record by its own time
 * ({@link EventTimeExtractor}), never by the Kafka record timestamp.
 */
final class Inputs {
    private Inputs() {
    }

    static <T> KStream<String, T> decode(StreamsBuilder builder, String topic, Input<T> input, String deadLetterTopic,
                                         MeterRegistry registry) {
        DeadLetterCounters deadLetters = new DeadLetterCounters(registry, topic);
        RecordTimestampSkew skew = new RecordTimestampSkew(registry, topic);
        // the decoder forwards each record to one of these two by name: no filter to pass on the way
        String values = input.name() + "-value";
        String rejected = input.name() + "-dead-letter";
        KStream<String, Decoded<T>> decoded = builder
                .stream(topic, Consumed.with(Serdes.ByteArray(), Incoming.serde(input.parser()))
                        .withTimestampExtractor(new EventTimeExtractor<>(input)).withName(input.name() + "-in"))
                .process(() -> new DecodeProcessor<>(input, deadLetters, skew, values, rejected),
                        Named.as(input.name() + "-decode"));
        decoded.mapValues(Decoded::deadLetter, Named.as(rejected))
                .to(deadLetterTopic, Produced.with(Serdes.String(), JsonSerde.of(DeadLetter.class))
                        .withName(input.name() + "-dead-letter-out"));
        return decoded.mapValues(Decoded::value, Named.as(values));
    }
}
