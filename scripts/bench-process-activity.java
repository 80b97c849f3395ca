import io.rdmamon.collector.gpu.ProcessActivity;
import java.lang.management.ManagementFactory;
import java.util.*;
/** The cost of one ProcessActivity pass (collector, issue 49): java -cp target/classes scripts/bench-process-activity.java GPUS */
public class PaBench {
    public static void main(String[] a) throws Exception {
        int self = (int) ProcessHandle.current().pid();
        // 8 GPUs, one process each: this JVM (its threads' children files) and 7 python-like children
        List<Process> kids = new ArrayList<>();
        Map<String, Set<Integer>> gpus = new LinkedHashMap<>();
        gpus.put("GPU-0", Set.of(self));
        for (int i = 1; i < Integer.parseInt(a[0]); i++) {
            Process p = new ProcessBuilder("sleep", "600").start();
            kids.add(p);
            gpus.put("GPU-" + i, Set.of((int) p.pid()));
        }
        ProcessActivity r = new ProcessActivity(java.nio.file.Path.of("/proc"));
        var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 2000; i++) r.sample(gpus, System.nanoTime());
        int n = 5000;
        long cpu0 = bean.getCurrentThreadCpuTime(); long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) r.sample(gpus, System.nanoTime());
        long cpu = bean.getCurrentThreadCpuTime() - cpu0; long wall = System.nanoTime() - t0;
        System.out.printf("%d GPUs (this JVM with %d tasks + %d sleep processes): %.1f us CPU, %.1f us wall per pass%n",
            gpus.size(), java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task")).count(), kids.size(), cpu / 1e3 / n, wall / 1e3 / n);
        kids.forEach(Process::destroy);
    }
}
