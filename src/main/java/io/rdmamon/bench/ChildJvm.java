package io.rdmamon.bench;

import io.rdmamon.support.ClassDataArchive;
import io.rdmamon.support.JvmOptionsFile;
import io.rdmamon.support.LogFiles;
import io.rdmamon.support.Processes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An rdmamon role in a JVM of its own, so that its CPU time and memory can be read apart from the broker and the
 * load generator: CPU from {@code /proc/PID/stat}, resident memory from {@code /proc/PID/status}, live heap by
 * {@code jcmd} (the class histogram of live objects, taken after a full GC). Linux only, like the collectors it
 * sizes.
 */
final class ChildJvm implements AutoCloseable {
    /** The last line of {@code jcmd GC.class_histogram}: instances and bytes of all live objects. */
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");

    /** The JVM options of the server roles in the launcher and the server image. */
    private static final String SERVER_JVM_OPTIONS = "/server/jvm.options";

    private final Process process;
    private final Path log;

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts {@code rdmamon ARGS} with this JVM's class path and the given max heap; output goes to {@code log}. */
    static ChildJvm start(String maxHeap, Path log, List<String> args) throws IOException {
        return start(maxHeap, log, args, Map.of());
    }

    /** As {@link #start(String, Path, List)}, with {@code env} added to this JVM's environment. */
    static ChildJvm start(String maxHeap, Path log, List<String> args, Map<String, String> env) throws IOException {
        return start(List.of("-Xmx" + maxHeap), System.getProperty("java.class.path"), "io.rdmamon.cli.Main", log,
                args, env);
    }

    /**
     * Starts the server role {@code rdmamon ARGS} as the launcher and the server image run it: with the server's
     * class-data archive (run from the jar), {@code server/jvm.options}, the given max heap, then {@code extraOptions}.
     */
    static ChildJvm startServerRole(String maxHeap, Path log, List<String> args, List<String> extraOptions)
            throws IOException {
        List<String> options = new ArrayList<>(ClassDataArchive.SERVER.jvmOptions());
        options.addAll(JvmOptionsFile.load(SERVER_JVM_OPTIONS));
        options.add("-Xmx" + maxHeap);
        options.addAll(extraOptions);
        return start(options, System.getProperty("java.class.path"), "io.rdmamon.cli.Main", log, args, Map.of());
    }

    /** Starts {@code mainClass ARGS} with the given JVM options and class path; output goes to {@code log}. */
    static ChildJvm start(List<String> jvmOptions, String classPath, String mainClass, Path log, List<String> args,
                          Map<String, String> env) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaTool("java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, mainClass));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        return new ChildJvm(builder.start(), log);
    }

    /** Options given on the command line as one space-separated string ({@code --jvm "-Xmx64m -Xss256k"}). */
    static List<String> splitOptions(String spaceSeparated) {
        return spaceSeparated.isBlank() ? List.of() : List.of(spaceSeparated.trim().split("\\s+"));
    }

    long pid() {
        return process.pid();
    }

    /** Fails with the end of the child's log when it has exited. */
    void checkAlive() throws IOException {
        if (!process.isAlive()) {
            throw new IllegalStateException("rdmamon child exited with " + process.exitValue() + "; end of its log:\n"
                    + String.join("\n", LogFiles.lastLines(log, 30)));
        }
    }

    /** Waits for the child to finish on its own; fails unless it exits with 0 in time. */
    void awaitExit(Duration timeout) throws IOException, InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("rdmamon child did not finish cleanly; end of its log:\n"
                    + String.join("\n", LogFiles.lastLines(log, 30)));
        }
    }

    /** Kills the child with SIGKILL, as the kernel's OOM killer or a lost node would: no shutdown hook runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** User plus system CPU seconds the child has used so far. */
    double cpuSeconds() throws IOException {
        return cpuSeconds(pid());
    }

    /** User plus system CPU seconds process {@code pid} has used so far. */
    static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // fields after the command name, which is in parentheses and may contain spaces
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / ThreadTicks.PER_SECOND;
    }

    /** Resident set size now ({@code VmRSS}) and at its peak ({@code VmHWM}), bytes. */
    record Resident(long now, long peak) {
    }

    Resident residentBytes() throws IOException {
        return residentBytes(pid());
    }

    /** Resident set size of process {@code pid}, now and at its peak. */
    static Resident residentBytes(long pid) throws IOException {
        long rss = 0;
        long peak = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = kib(line);
            } else if (line.startsWith("VmHWM:")) {
                peak = kib(line);
            }
        }
        return new Resident(rss, peak);
    }

    /**
     * The live data on the heap, bytes: the class histogram of live objects, which a full GC precedes. Unlike the
     * heap summary of {@code GC.heap_info}, its format is the same under every collector (with one CPU the JVM picks
     * the serial collector, with two or more G1).
     */
    long liveHeapBytes() throws IOException, InterruptedException {
        String histogram = jcmd("GC.class_histogram");
        Matcher m = HISTOGRAM_TOTAL.matcher(histogram);
        if (!m.find()) {
            throw new IllegalStateException("no Total line in jcmd GC.class_histogram of " + pid() + ": "
                    + histogram.substring(Math.max(0, histogram.length() - 300)));
        }
        return Long.parseLong(m.group(1));
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(javaTool("jcmd").toString(), Long.toString(pid()), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("jcmd " + command + " failed on " + pid() + ": " + out);
        }
        return out;
    }

    private static long kib(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("\\D", "")) * 1024;
    }

    private static Path javaTool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name);
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(30));
    }
}
