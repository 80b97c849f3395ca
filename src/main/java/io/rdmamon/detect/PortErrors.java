package io.rdmamon.detect;

import io.rdmamon.model.CounterClass;
import io.rdmamon.model.PortSample;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** A sample's error increments by {@link CounterClass}, whether or not the collector summed them already. */
public final class PortErrors {
    private PortErrors() {
    }

    public static Map<String, Long> byClass(PortSample sample) {
        if (!sample.errorClasses().isEmpty() || sample.errors().isEmpty()) {
            return sample.errorClasses();
        }
        Map<String, Long> out = new TreeMap<>();
        sample.errors().forEach((counter, increment) -> CounterClass.of(counter)
                .ifPresent(c -> out.merge(c.wireName(), increment == null ? 0 : increment, Long::sum)));
        return out;
    }

    /** Sum of the increments of the given classes in this sample. */
    public static long sum(PortSample sample, Set<CounterClass> classes) {
        Map<String, Long> byClass = byClass(sample);
        long total = 0;
        for (CounterClass c : classes) {
            Long n = byClass.get(c.wireName());
            total += n == null ? 0 : Math.max(0, n);
        }
        return total;
    }

    /** True when the port's state is known and is not (a variant of) ACTIVE: {@code 4: ACTIVE}, {@code PORT_ACTIVE}. */
    public static boolean knownNotActive(String state) {
        return state != null && !state.isBlank() && !state.toUpperCase(Locale.ROOT).contains("ACTIVE");
    }
}
