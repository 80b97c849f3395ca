package io.rdmamon.jobs.k8s;

import io.rdmamon.model.JobRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class JobAssemblerTest {
    private final JobAssembler assembler = new JobAssembler(new RankRule(List.of("master", "chief", "worker"),
            Set.of("launcher", "mpimaster")));
    private static final JobAssembler.DeviceSource NO_DEVICES = (node, namespace, pod) -> null;

    private static TrainingPod pod(String type, Integer index, PodState state) {
        return new TrainingPod("uid-1", "kubeflow", "ml", "job", "job-" + type + "-" + index, type, index, null,
                "node-" + type + index, state, 0, null, Map.of("app", "x", "idx", type + index));
    }

    private static TrainingPod pod(String type, Integer index) {
        return pod(type, index, PodState.RUNNING);
    }

    private JobRecord assemble(RankRule.Shape shape, TrainingPod... pods) {
        return assembler.assemble(List.of(pods), shape, NO_DEVICES, JobAssembler.InstanceTypeSource.NONE, 42L);
    }

    private static List<String> rankedPods(JobRecord job) {
        return job.ranks().stream().map(r -> r.rank() + ":" + r.pod()).toList();
    }

    @Test
    void shouldRankTheMasterFirstThenWorkersByIndexWhenAPyTorchJobHasAMaster() {
        JobRecord job = assemble(new RankRule.Shape(), pod("worker", 1), pod("worker", 0), pod("master", 0));

        assertThat(rankedPods(job)).containsExactly("0:job-master-0", "1:job-worker-0", "2:job-worker-1");
        assertThat(job.worldSize()).isEqualTo(3);
        assertThat(job.ranks().get(0).node()).isEqualTo("node-master0");
        assertThat(job.labels()).containsEntry("app", "x").doesNotContainKey("idx");
    }

    @Test
    void shouldNumberWorkersFromZeroAndLeaveTheLauncherOutWhenAnMpiJobRuns() {
        JobRecord job = assemble(new RankRule.Shape(), pod("launcher", 0), pod("worker", 1), pod("worker", 0));

        assertThat(rankedPods(job)).containsExactly("0:job-worker-0", "1:job-worker-1");
        assertThat(job.worldSize()).isEqualTo(2);
    }

    @Test
    void shouldPutUnlistedTypesAfterTheListedOnesAlphabeticallyWhenAJobHasMoreRoles() {
        JobRecord job = assemble(new RankRule.Shape(), pod("ps", 0), pod("worker", 0), pod("evaluator", 0),
                pod("chief", 0));

        assertThat(rankedPods(job)).containsExactly("0:job-chief-0", "1:job-worker-0", "2:job-evaluator-0",
                "3:job-ps-0");
    }

    @Test
    void shouldKeepEveryRankAndTheSizeWhenAPodIsBrieflyGone() {
        RankRule.Shape shape = new RankRule.Shape();
        assemble(shape, pod("master", 0), pod("worker", 0), pod("worker", 1));

        JobRecord withoutMaster = assemble(shape, pod("worker", 0), pod("worker", 1));

        assertThat(rankedPods(withoutMaster)).containsExactly("1:job-worker-0", "2:job-worker-1");
        assertThat(withoutMaster.worldSize()).isEqualTo(3);
    }

    @Test
    void shouldUseExplicitRanksAndRankUnindexedPodsLastWhenALabelJobSaysSo() {
        TrainingPod explicit = new TrainingPod("u", "label", "ml", "ft", "ft-a", "", null, 1, "n1", PodState.RUNNING,
                0, null, Map.of());
        TrainingPod indexed = new TrainingPod("u", "label", "ml", "ft", "ft-0", "", 0, null, "n2", PodState.RUNNING,
                0, null, Map.of());
        TrainingPod unindexed = new TrainingPod("u", "label", "ml", "ft", "ft-b", "", null, null, "n3",
                PodState.RUNNING, 0, null, Map.of());

        JobRecord job = assemble(new RankRule.Shape(), unindexed, explicit, indexed);

        assertThat(rankedPods(job)).containsExactly("0:ft-0", "1:ft-a", "2:ft-b");
        assertThat(job.worldSize()).isEqualTo(3);
    }

    @Test
    void shouldDeriveTheJobStateFromItsPodsWhenTheyDisagree() {
        record Case(List<PodState> pods, String state) {
        }
        List<Case> cases = List.of(
                new Case(List.of(PodState.RUNNING, PodState.RUNNING), JobRecord.RUNNING),
                new Case(List.of(PodState.RUNNING, PodState.PENDING), JobRecord.PENDING),
                new Case(List.of(PodState.SUCCEEDED, PodState.SUCCEEDED), JobRecord.SUCCEEDED),
                new Case(List.of(PodState.SUCCEEDED, PodState.RUNNING), JobRecord.RUNNING),
                new Case(List.of(PodState.FAILED, PodState.PENDING), JobRecord.FAILED),
                new Case(List.of(PodState.SUCCEEDED, PodState.FAILED), JobRecord.FAILED));
        for (Case c : cases) {
            List<TrainingPod> pods = new ArrayList<>();
            for (int i = 0; i < c.pods().size(); i++) {
                pods.add(pod("worker", i, c.pods().get(i)));
            }
            assertThat(JobAssembler.state(pods)).as(c.pods().toString()).isEqualTo(c.state());
        }
    }

    @Test
    void shouldCarryTheLastIdentityWithoutRanksWhenTheJobIsDeleted() {
        JobRecord running = assemble(new RankRule.Shape(), pod("master", 0), pod("worker", 0));

        JobRecord deleted = JobAssembler.deleted(running, 99L);

        assertThat(deleted.state()).isEqualTo(JobRecord.DELETED);
        assertThat(deleted.uid()).isEqualTo(running.uid());
        assertThat(deleted.updatedAt()).isEqualTo(99L);
        assertThat(deleted.ranks()).isEmpty();
        assertThat(deleted.worldSize()).isEqualTo(2);
    }
}
