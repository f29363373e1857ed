package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Fixtures.atPriority;
import static dev.rota.core.scheduling.Fixtures.evicted;
import static dev.rota.core.scheduling.Fixtures.paused;
import static dev.rota.core.scheduling.Fixtures.ready;
import static dev.rota.core.scheduling.Fixtures.withDisk;
import static dev.rota.core.scheduling.Fixtures.withLabels;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.model.RestartPolicy;
import dev.rota.core.model.VmStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which running VMs a waiting VM evicts. Each row is a cluster: workers ({@code w1:4}, a name and
 * its CPUs; {@code +gpu} a label, {@code !} paused), the VMs running on them ({@code a@w1:2:10}: a
 * at priority 10 on w1 with 2 CPUs; then flags: {@code n} no restart policy, {@code d} a persistent
 * disk, {@code e} evicted by an earlier term, {@code s=web} a replica of set web, {@code l} an old
 * copy on its way out), the sets' allowances ({@code web=1}), the waiting VMs ({@code p:2:50}, and
 * {@code +gpu} for a label it needs); then the evictions, as {@code victim@worker>for}.
 */
class PreemptorTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // what                          | workers   | running                                  |
        // allowances | waiting  | evictions
        "one large before two small      | w1:4      | a@w1:1:10 b@w1:1:10 c@w1:2:10             |            | p:2:50   | c@w1>p",
        "the lowest first                | w1:4      | a@w1:2:30 b@w1:2:10                       |            | p:2:50   | b@w1>p",
        "the lowest, then spare the rest | w1:4      | a@w1:1:10 b@w1:2:20 c@w1:1:30             |            | p:2:50   | b@w1>p",
        "a peer within 10 is never       | w1:2      | a@w1:2:41                                 |            | p:2:50   | -",
        "exactly 10 below may go         | w1:2      | a@w1:2:40                                 |            | p:2:50   | a@w1>p",
        "higher never goes for lower     | w1:2      | a@w1:2:90                                 |            | p:2:50   | -",
        "no restart policy stays         | w1:2      | a@w1:2:0:n                                |            | p:2:50   | -",
        "a persistent disk stays         | w1:2      | a@w1:2:0:d                                |            | p:2:50   | -",
        "the fewest across workers       | w1:2 w2:2 | a@w1:1:0 b@w1:1:0 c@w2:2:30               |            | p:2:50   | c@w2>p",
        "then the lowest across workers  | w1:2 w2:2 | a@w1:2:30 c@w2:2:20                       |            | p:2:50   | c@w2>p",
        "not enough anywhere: none       | w1:4      | a@w1:2:10 b@w1:2:45                       |            | p:4:50   | -",
        "a set's budget bounds it        | w1:2 w2:2 | r1@w1:1:0:s=web r2@w1:1:0:s=web c@w2:2:20 | web=1      | p:2:50   | c@w2>p",
        "a set's budget spent: none      | w1:2      | r1@w1:1:0:s=web r2@w1:1:0:s=web           | web=0      | p:1:50   | -",
        "within the budget               | w1:2      | r1@w1:1:0:s=web r2@w1:1:0:s=web           | web=2      | p:2:50   | r1@w1>p r2@w1>p",
        "room freeing: nothing more      | w1:2      | a@w1:1:10:e b@w1:1:10                     |            | p:1:50   | -",
        "an old copy leaving: nothing    | w1:2      | a@w1:1:10:l b@w1:1:10                     |            | p:1:50   | -",
        "each its own room               | w1:2      | a@w1:1:0 b@w1:1:10                        |            | p:1:60 q:1:60 | a@w1>p b@w1>q",
        "the higher waiting first        | w1:1      | a@w1:1:0                                  |            | p:1:20 q:1:90 | a@w1>q",
        "freed room is its alone         | w1:2      | a@w1:1:10:e b@w1:1:10                     |            | p:1:50 q:1:50 | b@w1>q",
        "what is freed beyond is the next's | w1:2 w2:1 | a@w1:2:10 c@w2:1:10                    |            | p:1:50 q:1:50 | a@w1>p",
        "only where it may go            | w1:2 w2:2+gpu | a@w1:2:0 b@w2:2:30                    |            | p:2:50+gpu | b@w2>p",
        "no worker with its label        | w1:2      | a@w1:2:0                                  |            | p:2:50+gpu | -",
        "a paused worker is not used     | w1:2!     | a@w1:2:0                                  |            | p:2:50   | -",
      })
  void choosesTheFewestAndLowest(
      String what,
      String workerSpec,
      String runningSpec,
      String allowanceSpec,
      String waitingSpec,
      String expected) {
    List<Candidate> workers = new ArrayList<>();
    for (String w : workerSpec.trim().split(" ")) {
      boolean isPaused = w.endsWith("!");
      String[] f = w.replace("!", "").split("\\+")[0].split(":");
      Candidate c = ready(f[0], Long.parseLong(f[1]));
      if (w.contains("+")) {
        c = withLabels(c, Map.of(w.replace("!", "").split("\\+")[1], "yes"));
      }
      workers.add(isPaused ? paused(c) : c);
    }
    List<Holding> holdings = new ArrayList<>();
    List<Holding> leaving = new ArrayList<>();
    List<Preemptor.Running> running = new ArrayList<>();
    long seq = 0;
    for (String r : runningSpec.trim().split(" ")) {
      String[] f = r.split(":");
      String name = f[0].split("@")[0];
      String worker = f[0].split("@")[1];
      long cpu = Long.parseLong(f[1]);
      String flags = f.length > 3 ? f[3] : "";
      String set = flags.startsWith("s=") ? flags.substring(2) : null;
      Map<String, Long> request = Map.of("cpu", cpu, "memory", 512L);
      holdings.add(new Holding(worker, request, set));
      if (flags.equals("l")) {
        leaving.add(new Holding(worker, request, set));
        continue;
      }
      VmSnapshot vm =
          atPriority(
              VmSnapshot.builder(name, ++seq, "process", request)
                  .status(VmStatus.RUNNING)
                  .set(set)
                  .restartPolicy(flags.equals("n") ? RestartPolicy.NEVER : RestartPolicy.ALWAYS)
                  .build(),
              Integer.parseInt(f[2]));
      vm = flags.equals("d") ? withDisk(vm, worker, false) : vm;
      vm = flags.equals("e") ? evicted(vm) : vm;
      running.add(new Preemptor.Running(vm, worker));
    }
    Map<String, Integer> allowances = new HashMap<>();
    for (String a : allowanceSpec == null ? new String[0] : allowanceSpec.trim().split(" ")) {
      allowances.put(a.split("=")[0], Integer.parseInt(a.split("=")[1]));
    }
    List<PendingVm> waiting = new ArrayList<>();
    for (String p : waitingSpec.trim().split(" ")) {
      String[] f = p.split("\\+")[0].split(":");
      Map<String, String> labels = p.contains("+") ? Map.of(p.split("\\+")[1], "yes") : Map.of();
      waiting.add(
          PendingVm.builder(
                  f[0], 100 + waiting.size(), "process", Map.of("cpu", Long.parseLong(f[1])))
              .labels(labels)
              .build()
              .withPriority(Integer.parseInt(f[2])));
    }

    Preemptor.Outcome outcome =
        Preemptor.plan(workers, holdings, leaving, running, waiting, allowances);

    List<String> evictions = new ArrayList<>();
    outcome.preemptions().forEach(e -> evictions.add(e.vm() + "@" + e.worker() + ">" + e.forVm()));
    assertEquals(expected.trim(), evictions.isEmpty() ? "-" : String.join(" ", evictions), what);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "evicting | a@w1:2:10 | evicting a (priority 10) from worker w1 to make room (priority 50): placed once it stops",
        "freeing  | a@w1:2:10:e | room is being freed for it on worker w1: placed once it is",
      })
  void theWaitingVmSaysWhatItWaitsFor(String what, String runningSpec, String expected) {
    String[] f = runningSpec.split(":");
    VmSnapshot vm =
        atPriority(
            VmSnapshot.builder("a", 1, "process", Map.of("cpu", 2L))
                .status(VmStatus.RUNNING)
                .restartPolicy(RestartPolicy.ON_FAILURE)
                .build(),
            Integer.parseInt(f[2]));
    vm = f.length > 3 ? evicted(vm) : vm;
    Preemptor.Outcome outcome =
        Preemptor.plan(
            List.of(ready("w1", 2)),
            List.of(new Holding("w1", Map.of("cpu", 2L))),
            List.of(),
            List.of(new Preemptor.Running(vm, "w1")),
            List.of(
                PendingVm.builder("p", 9, "process", Map.of("cpu", 2L)).build().withPriority(50)),
            Map.of());
    assertEquals(Map.of("p", expected), new TreeMap<>(outcome.reasons()), what);
  }
}
