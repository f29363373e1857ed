package dev.rota.store;

import static dev.rota.store.StoreFixtures.T0;
import static dev.rota.store.StoreFixtures.unique;
import static dev.rota.store.StoreFixtures.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.data.exceptions.OptimisticLockException;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the store promises, on whichever database the subclass runs against. */
abstract class RepositoryContract {
  @Inject WorkerRepository workers;
  @Inject VmRepository vms;
  @Inject VmEventRepository events;
  @Inject ChangeRepository changes;

  VmRow vm(String name, String status, String worker) {
    return StoreFixtures.vm(vms, name, status, worker);
  }

  @Inject ClusterStatusRepository status;
  @Inject VmTaskRepository tasks;

  @Test
  void aTaskIsPlacedOnceOnlyWhileItsVmWantsItAndMovesOnOnceFromALiveState() {
    VmRow a = vms.save(vm(unique("a"), "pending", null));
    String id = VmTaskRow.id(a.seq(), a.name() + ".0");
    assertEquals(
        0,
        tasks.place(id, a.name(), a.seq() + 1000, 0, "w1", T0),
        "another submission of that name");
    assertEquals(0, tasks.place(id, a.name(), a.seq(), 1, "w1", T0), "another generation");
    assertEquals(1, tasks.place(id, a.name(), a.seq(), 0, "w1", T0));
    assertEquals(0, tasks.place(id, a.name(), a.seq(), 0, "w2", T0), "placed already");
    assertEquals(1, tasks.started(id, T0.plusSeconds(1), "running"));
    assertEquals(0, tasks.started(id, T0.plusSeconds(2), "running"), "once");
    assertEquals(0, tasks.givenBack(id), "only a task that never started is given back");
    assertEquals(1, tasks.ended(id, "exited", 3, "exited with code 3", T0.plusSeconds(3)));
    assertEquals(0, tasks.ended(id, "vanished", null, "vanished", T0.plusSeconds(4)), "ended once");
    VmTaskRow read = tasks.findById(id).orElseThrow();
    assertEquals("exited", read.state());
    assertEquals(3, read.exitCode());
    assertEquals(T0.plusSeconds(1), read.startedAt());
    assertEquals(a.name() + ".0", read.taskId());

    VmRow stopped = vms.save(vm(unique("s"), "stopped", null));
    assertEquals(
        0,
        tasks.place(
            VmTaskRow.id(stopped.seq(), stopped.name() + ".0"),
            stopped.name(),
            stopped.seq(),
            0,
            "w1",
            T0),
        "a stop that won the race wins");
    assertEquals(1, tasks.forget(id));
  }

  @Inject TermReads termReads;
  @Inject io.micronaut.transaction.TransactionOperations<java.sql.Connection> tx;
  @Inject OutboxRepository actions;

  /**
   * The term's own read of every VM gives what the repository's entities give, column for column.
   */
  @Test
  void theSchedulersReadOfTheVmsIsTheirRowsColumnForColumn() {
    VmRow plain = vms.save(vm(unique("p"), "pending", null));
    String set = unique("set");
    VmRow full =
        vms.save(
            new VmRow(
                unique("f"),
                vms.nextSeq(),
                T0,
                VmTemplate.builder("tart")
                    .image("ghcr.io/x/y:1")
                    .command(List.of("run"))
                    .resources(Map.of("cpu", 2L, "memory", 4096L))
                    .labels(Map.of("zone", "a", "disk", "ssd"))
                    .restartPolicy("OnFailure")
                    .maxRestarts(5)
                    .restartWindowSeconds(3600)
                    .ttlSecondsAfterFinished(60)
                    .guest(
                        new dev.rota.agentapi.GuestSpec(
                            "file:///k",
                            null,
                            "console=ttyS0",
                            "#cloud-config\n",
                            List.of("ssh-ed25519 AAAAC3Nz a@b"),
                            "echo hi"))
                    .disconnect(new dev.rota.agentapi.Disconnect(false, 600))
                    .priority(70)
                    .constraints(
                        List.of(
                            new dev.rota.core.model.LabelConstraint(
                                "zone", "in", List.of("a", "b"))))
                    .tolerations(
                        List.of(
                            dev.rota.agentapi.Toleration.parse("dedicated=gpu:NoSchedule"),
                            dev.rota.agentapi.Toleration.parse("*")))
                    .affinities(
                        List.of(
                            new dev.rota.core.model.Affinity(
                                "kernel", "version", List.of(">= 6.1"), -40)))
                    .build(),
                new VmState(
                    "running",
                    "why",
                    "w1",
                    3,
                    2,
                    T0,
                    T0,
                    T0.plusSeconds(5),
                    7,
                    T0.plusSeconds(9),
                    T0.plusSeconds(3600)),
                new VmPlacementNotes(
                    "w9",
                    T0.plusSeconds(90),
                    "no room",
                    "w8",
                    "w7",
                    "w6",
                    true,
                    "w5",
                    true,
                    "w4",
                    3),
                new VmSetMembership(set, 2, unique("replica"), unique("pool"), true, 3),
                new VmReadiness(0, T0, null),
                0));
    VmRow readBack = vms.findById(full.name()).orElseThrow();
    assertEquals(
        List.of(full.name()),
        vms.ofTasksNamed(List.of(full.taskName(), full.name())).stream().map(VmRow::name).toList(),
        "its tasks carry its replica's name, not its own");
    assertEquals(
        full.taskName() + "-" + full.seq(), readBack.diskId(), "so do its disk and saved memory");
    assertEquals(
        List.of(plain.name()),
        vms.ofTasksNamed(List.of(plain.name())).stream().map(VmRow::name).toList());
    assertEquals(full.spec(), readBack.spec(), "the user's columns round-trip");
    assertEquals(full.state(), readBack.state(), "the lifecycle's");
    assertEquals(full.notes(), readBack.notes(), "the scheduler's");
    assertEquals(full.membership(), readBack.membership(), "the set's");
    assertEquals(full.readiness(), readBack.readiness(), "the task reports'");
    assertEquals(VmReadiness.NONE, vms.findById(plain.name()).orElseThrow().readiness());
    assertEquals(VmPlacementNotes.NONE, vms.findById(plain.name()).orElseThrow().notes());
    assertEquals(VmSetMembership.NONE, vms.findById(plain.name()).orElseThrow().membership());
    VmRow sameTemplate = vms.save(vm(unique("t"), "pending", null));
    // Running, its readiness check passed for the generation before: not yet ready for its set.
    VmRow awaiting =
        vms.save(
            new VmRow(
                unique("r"),
                vms.nextSeq(),
                T0,
                VmTemplate.builder("process")
                    .command(List.of("run"))
                    .env(Map.of("MODE", "ci"))
                    .resources(Map.of("cpu", 1L))
                    .restartPolicy("Always")
                    .ports(List.of(new dev.rota.agentapi.PortSpec("web", 80, null)))
                    .checks(
                        new dev.rota.agentapi.Checks(
                            new dev.rota.agentapi.CheckSpec(null, "web", null, null, 0, 10, 1, 3),
                            null))
                    .secrets(
                        new dev.rota.agentapi.SecretRefs(Map.of("TOKEN", "ci-token"), null, null))
                    .maxRunSeconds(7200)
                    .onExpiry("delete")
                    .persistentDisk(true)
                    .diskSizeGi(20)
                    .build(),
                new VmState("running", "why", "w1", 2, 0, T0, T0, null, 0, null, null),
                VmPlacementNotes.NONE,
                VmSetMembership.NONE,
                new VmReadiness(1, T0, null),
                0));
    assertEquals(
        awaiting.spec(), vms.findById(awaiting.name()).orElseThrow().spec(), "secrets round-trip");
    assertTrue(awaiting.scheduling().awaitingReadiness(), "ready for generation 1, not 2");

    List<VmSchedulingRow> read = tx.executeRead(s -> termReads.vms(s.getConnection()));

    for (VmRow v : List.of(plain, full, sameTemplate, awaiting)) {
      VmSchedulingRow row =
          read.stream().filter(r -> r.name().equals(v.name())).findFirst().orElseThrow();
      assertEquals(vms.findById(v.name()).orElseThrow().scheduling(), row, v.name());
    }
    assertTrue(
        read.stream()
            .filter(r -> r.name().equals(full.name()))
            .findFirst()
            .orElseThrow()
            .keepsThroughDisconnect());
    assertEquals(
        new dev.rota.agentapi.Disconnect(false, 600),
        vms.findById(full.name()).orElseThrow().spec().disconnect());
    VmSchedulingRow p =
        read.stream().filter(r -> r.name().equals(plain.name())).findFirst().orElseThrow();
    VmSchedulingRow t =
        read.stream().filter(r -> r.name().equals(sameTemplate.name())).findFirst().orElseThrow();
    assertTrue(p.resources() == t.resources(), "one parse for one text");
    assertThrows(
        UnsupportedOperationException.class,
        () -> p.resources().put("cpu", 9L),
        "so nobody may change it");
  }

  /**
   * The term's own reads of the placed and the reported tasks give what the repositories give,
   * column for column.
   */
  @Test
  void theTermsReadsOfTheTasksAreTheirRowsColumnForColumn() {
    VmRow a = vms.save(vm(unique("a"), "pending", null));
    String placed = VmTaskRow.id(a.seq(), a.name() + ".0");
    tasks.place(placed, a.name(), a.seq(), 0, "w1", T0);
    VmRow b = vms.save(vm(unique("b"), "pending", null));
    String ended = VmTaskRow.id(b.seq(), b.name() + ".0");
    tasks.place(ended, b.name(), b.seq(), 0, "w2", T0);
    tasks.started(ended, T0.plusSeconds(1), "running");
    tasks.ended(ended, "exited", 3, "exited with code 3", T0.plusSeconds(2));

    List<VmTaskRow> read = tx.executeRead(s -> termReads.placedTasks(s.getConnection()));
    for (String id : List.of(placed, ended)) {
      assertEquals(
          tasks.findById(id).orElseThrow(),
          read.stream().filter(t -> t.id().equals(id)).findFirst().orElseThrow());
    }

    String w1 = unique("w"), w2 = unique("w"), w3 = unique("w");
    agentTasks.saveAll(
        List.of(
            AgentTaskRow.of(
                w1,
                "x.0",
                "running",
                null,
                null,
                T0,
                java.util.Map.of("ssh", 20001, "web", 20002),
                42L),
            AgentTaskRow.of(w1, "y.0", "exited", 0, "done", T0.plusSeconds(5)),
            AgentTaskRow.of(w2, "z.0", "failed", 137, "killed", T0),
            AgentTaskRow.of(w3, "q.0", "running", null, null, T0)));
    List<AgentTaskRow> reported =
        tx.executeRead(s -> termReads.reportedTasks(s.getConnection(), List.of(w1, w2)));
    assertEquals(
        agentTasks.findByWorkerInList(List.of(w1, w2)).stream()
            .sorted(java.util.Comparator.comparing(AgentTaskRow::id))
            .toList(),
        reported.stream().sorted(java.util.Comparator.comparing(AgentTaskRow::id)).toList());
    assertEquals(3, reported.size(), "only the workers asked about");
    assertEquals(
        java.util.Map.of("ssh", 20001, "web", 20002),
        agentTasks.findById(w1 + "/x.0").orElseThrow().ports(),
        "a task's worker ports, kept");
    assertEquals(java.util.Map.of(), agentTasks.findById(w1 + "/y.0").orElseThrow().ports());
    assertEquals(42L, agentTasks.findById(w1 + "/x.0").orElseThrow().submission(), "its agent's");
    assertEquals(null, agentTasks.findById(w1 + "/y.0").orElseThrow().submission());
    assertEquals(
        List.of(), tx.executeRead(s -> termReads.reportedTasks(s.getConnection(), List.of())));
  }

  @Test
  void theWorkflowsLifecycleWriteIsForItsGenerationAndThePendingReasonOnlyWhilePending() {
    VmRow a = vms.save(vm(unique("a"), "pending", null));
    assertEquals(1, vms.explainPending(a.name(), "no worker", true));
    assertTrue(vms.findById(a.name()).orElseThrow().notes().fitsNowhere());
    assertEquals(
        0, vms.explainPending(a.name(), "no worker", true), "written only when it changed");
    assertEquals(
        0,
        vms.recordLifecycle(a.name(), 0, 1, "running", "w1", "running", null, 5, T0, T0, null),
        "another generation");
    assertEquals(
        1, vms.recordLifecycle(a.name(), 0, 0, "running", "w1", "running", null, 5, T0, T0, null));
    assertEquals(0, vms.explainPending(a.name(), "no worker at all", false), "not pending");
    VmRow read = vms.findById(a.name()).orElseThrow();
    assertEquals("running", read.state().status());
    assertEquals("w1", read.state().worker());
    assertEquals(5, read.state().taskEventId());
    assertEquals("no worker", read.notes().pendingReason());
    assertEquals(1, vms.placed(a.name()));
    assertEquals(null, vms.findById(a.name()).orElseThrow().notes().pendingReason());
  }

  @Test
  void aBatchOfSubmissionNumbersIsTakenInOneReadAndEachIsNew() {
    long before = vms.nextSeq();
    List<Long> batch = vms.nextSeqs(3);
    assertEquals(3, batch.size());
    assertEquals(3, new java.util.HashSet<>(batch).size());
    assertTrue(batch.stream().allMatch(s -> s > before), batch.toString());
    assertTrue(vms.nextSeq() > java.util.Collections.max(batch));
  }

  @Test
  void aVmWorkflowsWritesChangeOnlyTheSubmissionItRunsFor() {
    VmRow a = vms.save(vm(unique("a"), "pending", null));
    long deleted = a.seq() + 1_000; // a VM of that name deleted, whose run is still closing
    assertEquals(0, vms.countOf(a.name(), deleted));
    assertEquals(1, vms.countOf(a.name(), a.seq()));
    assertEquals(1, vms.countOf(a.name(), 0), "0: whatever VM has the name");
    assertEquals(
        0,
        vms.recordLifecycle(
            a.name(), deleted, 0, "running", "w1", "running", null, 5, T0, T0, null));
    assertEquals(0, vms.recordStatus(a.name(), deleted, "stopped", "stopped by request"));
    assertEquals(0, vms.requeue(a.name(), deleted, 1, "restarted", null, T0, null));
    assertEquals(0, vms.restartAt(a.name(), deleted, T0));
    VmRow read = vms.findById(a.name()).orElseThrow();
    assertEquals("pending", read.state().status());
    assertEquals(0, read.state().restartCount());
    assertEquals(a.version(), read.version(), "not a field changed");
    assertEquals(
        1,
        vms.recordLifecycle(
            a.name(), a.seq(), 0, "running", "w1", "running", null, 5, T0, T0, null));
    assertEquals(1, vms.recordStatus(a.name(), a.seq(), "stopped", "stopped by request"));
  }

  @Test
  void aLifecycleWriteOfEarlierEventsNeverOverwritesOneOfLaterEvents() {
    VmRow a = vms.save(vm(unique("a"), "pending", null));
    assertEquals(
        1,
        vms.recordLifecycle(
            a.name(), 0, 0, "running", "w1", "started", null, 11_509, T0, T0, null));
    assertEquals(
        0,
        vms.recordLifecycle(
            a.name(), 0, 0, "scheduled", "w1", "placed", null, 3_996, T0, null, null),
        "the write of the placing, arriving late");
    assertEquals("running", vms.findById(a.name()).orElseThrow().state().status());
    assertEquals(
        0,
        vms.recordLifecycle(a.name(), 0, 0, "running", "w1", "started", null, 11_509, T0, T0, null),
        "the same record again, as when its agent's report wrote it first");
    assertEquals(
        1,
        vms.recordLifecycle(a.name(), 0, 0, "stopped", "w1", "stopped", null, 11_509, T0, T0, T0),
        "what the workflow decided since, on the same events");
    assertEquals("stopped", vms.findById(a.name()).orElseThrow().state().status());
  }

  @Inject AgentTaskRepository agentTasks;

  @Inject VolumeRepository volumes;

  @Test
  void aVolumeIsMountedByOneVmIsHeldWhereItsDiskIsAndStaysThereWhenTheVmGoes() {
    String cache = unique("c");
    String other = unique("o");
    volumes.create(cache, 10, null, T0);
    volumes.create(other, 1, "w2", T0);
    VolumeRow made = volumes.findHeld(cache).orElseThrow();
    assertEquals(10, made.sizeGi());
    assertEquals(null, made.worker());
    assertTrue(volumes.findHeld(other).orElseThrow().seq() > made.seq(), "numbered anew");
    VmTemplate mounting =
        StoreFixtures.qemu(
            true,
            List.of(new VolumeMount(cache, "/var/cache"), new VolumeMount(other, null)),
            null);
    VmRow vm = vms.save(VmRow.submitted(unique("m"), vms.nextSeq(), mounting, "waiting", T0));
    assertEquals(mounting, vms.findById(vm.name()).orElseThrow().spec(), "its volumes round-trip");
    assertEquals(2, volumes.attach(vm.name(), List.of(cache, other)));
    assertEquals(0, volumes.attach(unique("x"), List.of(cache)), "one VM mounts a volume");
    assertEquals(1, vms.diskOn(vm.name(), vm.seq(), "w2"));
    assertEquals("w2", volumes.findHeld(cache).orElseThrow().worker(), "where its VM's disk is");
    assertEquals(
        List.of(cache, other),
        volumes.findHeldOn(List.of("w2")).stream()
            .map(VolumeRow::name)
            .filter(n -> n.equals(cache) || n.equals(other))
            .sorted()
            .toList());
    assertEquals(1, vms.moveDisk(vm.name(), vm.seq()));
    assertEquals(
        "w2",
        volumes.findHeld(cache).orElseThrow().worker(),
        "held where it is copied from while its VM moves");
    assertEquals(0, volumes.deleteIfFree(cache), "mounted: kept");
    assertEquals(2, volumes.detachAll(List.of(vm.name())));
    VolumeRow left = volumes.findHeld(cache).orElseThrow();
    assertEquals("w2", left.worker(), "left where its VM's disk was");
    assertEquals(null, left.vm());
    assertEquals(1, volumes.deleteIfFree(cache));
    assertTrue(volumes.findHeld(cache).isEmpty());
  }

  @Inject NamespaceRepository namespaces;

  @Test
  void aNamespaceIsChargedOnlyWithinItsQuotaAndEachLimitAlone() {
    assertTrue(namespaces.existsById(NamespaceRow.DEFAULT), "default is made by the migration");
    String ns = unique("ns");
    java.time.Instant now = java.time.Instant.parse("2026-01-01T00:00:00Z");
    namespaces.save(
        NamespaceRow.created(
            ns, "for the contract", new dev.rota.core.model.Quota(4L, null, 3L, null), now));
    assertEquals(1, namespaces.charge(ns, 3, 4096, 1, 10));
    assertEquals(0, namespaces.charge(ns, 2, 0, 1, 0), "cpu 5 of 4");
    assertEquals(1, namespaces.charge(ns, 1, 100_000, 2, 0), "memory has no limit");
    assertEquals(0, namespaces.charge(ns, 0, 0, 1, 0), "vms 4 of 3");
    assertEquals(0, namespaces.charge("elsewhere", 0, 0, 1, 0), "no such namespace");
    NamespaceRow row = namespaces.findById(ns).orElseThrow();
    assertEquals(new dev.rota.core.model.NamespaceUsage(4, 104_096, 3, 10), row.used());
    assertEquals(new dev.rota.core.model.Quota(4L, null, 3L, null), row.quota());

    namespaces.release(ns, 3, 4096, 1, 10);
    assertEquals(
        new dev.rota.core.model.NamespaceUsage(1, 100_000, 2, 0),
        namespaces.findById(ns).orElseThrow().used());
    assertEquals(0, namespaces.deleteEmpty(ns), "it holds VMs");
    namespaces.describe(ns, "lowered", 0L, null, null, null, now);
    assertEquals(0, namespaces.charge(ns, 1, 0, 0, 0), "past a lowered limit");
    assertEquals(1, namespaces.charge(ns, 0, 5, 0, 0), "other kinds still taken");
    namespaces.release(ns, 1, 100_005, 2, 0);
    assertEquals(1, namespaces.deleteEmpty(ns));
  }

  @Test
  void aProbeAnsweredResetsItsWorkerOnly() {
    String a = unique("w");
    String b = unique("w");
    String untouched = unique("w");
    for (String name : List.of(a, b, untouched)) {
      workers.save(worker(name));
      workers.probeFailed(name, T0, "refused");
    }
    assertEquals(1, workers.probeAnswered(a, T0.plusSeconds(5)));
    assertEquals(1, workers.probeAnswered(b, T0.plusSeconds(5)));
    assertEquals(
        0, workers.probeAnswered(a, T0.plusSeconds(4)), "an older answer never over a newer one");
    assertEquals(0, workers.probeFailed(a, T0.plusSeconds(4), "stale"), "nor an older failure");
    assertEquals(List.of(a), workers.probedAfter(List.of(a, untouched), T0.plusSeconds(4)));
    WorkerRow read = workers.findById(a).orElseThrow();
    assertTrue(read.lastProbeOk());
    assertEquals(0, read.probeFailures());
    assertEquals(null, read.lastProbeError());
    assertEquals(T0.plusSeconds(5), read.lastProbeAt());
    assertEquals(
        1, workers.findById(untouched).orElseThrow().probeFailures(), "only the named worker");
  }

  @Test
  void agentTaskRowsAreAddedChangedAndRemovedOneByOne() {
    String w = unique("w");
    workers.save(worker(w));
    AgentTaskRow a = AgentTaskRow.of(w, "a.0", "starting", null, null, T0);
    AgentTaskRow b = AgentTaskRow.of(w, "b.0", "running", null, null, T0);
    agentTasks.saveAll(List.of(a, b));
    agentTasks.updateAll(
        List.of(AgentTaskRow.of(w, "a.0", "exited", 3, "exited with code 3", T0.plusSeconds(1))));
    agentTasks.deleteByIdInList(List.of(b.id()));
    List<AgentTaskRow> read = agentTasks.findByWorkerInList(List.of(w));
    assertEquals(1, read.size(), read.toString());
    assertEquals("exited", read.get(0).state());
    assertEquals(3, read.get(0).exitCode());
    assertTrue(
        read.get(0)
            .sameReport(
                AgentTaskRow.of(w, "a.0", "exited", 3, "exited with code 3", T0.plusSeconds(9))),
        "the same report whenever it was seen");
    assertFalse(read.get(0).sameReport(a));
  }

  @Test
  void aWakeUpIsClaimedOnceUntilATermClearsIt() {
    String id = "rota-cluster";
    status.clearWake(id);
    assertEquals(1, status.claimWake(id), "the first claims it and signals");
    assertEquals(0, status.claimWake(id), "the rest see it pending and do not");
    assertEquals(0, status.claimWake(id));
    status.clearWake(id);
    assertEquals(1, status.claimWake(id), "after a term began, a change wakes it again");
  }

  @Test
  void workersRoundTripTheirMapsAndLists() {
    String name = unique("w");
    workers.save(worker(name));
    WorkerRow read = workers.findById(name).orElseThrow();
    assertEquals(Map.of("cpu", 8L, "memory", 16384L), read.resources());
    assertEquals(Map.of("disk", "ssd"), read.labels());
    assertEquals(List.of("process"), read.runtimes());
    assertEquals(T0, read.createdAt());
  }

  @Test
  void aStaleWriteIsRefusedNotApplied() {
    String name = unique("w");
    WorkerRow v0 = workers.save(worker(name));
    WorkerRow v1 = workers.update(v0.withPaused(true));
    assertEquals(v0.version() + 1, v1.version());
    assertThrows(OptimisticLockException.class, () -> workers.update(v0.withPaused(false)));
    assertTrue(
        workers.findById(name).orElseThrow().schedulingPaused(), "the stale write changed nothing");
  }

  @Test
  void aHeartbeatTouchesLastSeenOnlyAndKeepsTheVersion() {
    String name = unique("w");
    WorkerRow v0 = workers.save(worker(name));
    assertEquals(1, workers.heartbeat(name, T0.plusSeconds(30)));
    WorkerRow read = workers.findById(name).orElseThrow();
    assertEquals(T0.plusSeconds(30), read.lastSeen());
    assertEquals(
        v0.version(), read.version(), "so that it never makes the scheduler's commit stale");
    assertEquals(0, workers.heartbeat(unique("nobody"), T0));
  }

  @Test
  void aDeletionAskedIsNotedForItsSubmissionOnlyAndOutlivesTheRowsOwnWrites() {
    VmRow a = vms.save(vm(unique("a"), "running", "w1"));
    VmRow b = vms.save(vm(unique("b"), "running", "w1"));
    List<Long> both = List.of(a.seq(), b.seq());
    assertEquals(List.of(), vms.deletionAskedSince(both, T0), "never asked");

    vms.deletionAsked(List.of(a.seq()), T0.plusSeconds(10));
    assertEquals(List.of(a.seq()), vms.deletionAskedSince(both, T0.plusSeconds(10)));
    assertEquals(List.of(), vms.deletionAskedSince(both, T0.plusSeconds(11)), "asked before then");
    VmRow read = vms.findById(a.name()).orElseThrow();
    assertEquals(a.version(), read.version(), "so that no writer of the row fails for it");
    vms.update(read.withSpec(read.spec()));
    assertEquals(
        List.of(a.seq()),
        vms.deletionAskedSince(both, T0),
        "a write of the row carries no ask and keeps the one noted");

    vms.deleteById(a.name());
    VmRow again = vms.save(vm(a.name(), "pending", null));
    assertEquals(
        List.of(),
        vms.deletionAskedSince(List.of(again.seq()), T0),
        "a VM made anew under the name was never asked");

    vms.deletionAsked(both, T0.plusSeconds(20));
    vms.deletionUnasked(List.of(b.seq()));
    assertEquals(
        List.of(), vms.deletionAskedSince(both, T0), "its run begun anew lost the request");
  }

  @Test
  void aDuplicateNameIsAUniqueViolation() {
    String name = unique("vm");
    vms.save(vm(name, "pending", null));
    RuntimeException e =
        assertThrows(RuntimeException.class, () -> vms.save(vm(name, "pending", null)));
    assertTrue(Sql.isUniqueViolation(e), e.toString());
  }

  @Test
  void vmPagesFollowSubmissionOrderAndFilter() {
    String worker = unique("w");
    String a = unique("a");
    String b = unique("b");
    String c = unique("c");
    VmRow first = vms.save(vm(a, "pending", null));
    vms.save(vm(b, "running", worker));
    vms.save(vm(c, "running", worker));
    List<String> page =
        vms.page(first.seq() - 1, null, null, null, 2).stream().map(VmRow::name).toList();
    assertEquals(List.of(a, b), page);
    assertEquals(
        List.of(b, c), vms.page(0, "running", worker, null, 10).stream().map(VmRow::name).toList());
    String d = unique("d");
    VmRow pendingThere = vms.save(vm(d, "scheduled", worker));
    assertEquals(
        List.of(b, c, d),
        vms.page(0, null, worker, null, 10).stream().map(VmRow::name).toList(),
        "a worker's, any status");
    assertEquals(
        List.of(d),
        vms.page(pendingThere.seq() - 1, null, worker, null, 10).stream().map(VmRow::name).toList(),
        "a worker's, after a cursor");
    assertEquals(
        List.of(),
        vms.page(0, "pending", worker, null, 10),
        "a worker's, of a status it has none of");
    assertEquals(
        List.of(a),
        vms.page(first.seq() - 1, "pending", null, null, 10).stream()
            .map(VmRow::name)
            .filter(a::equals)
            .toList());
    assertEquals(3, vms.onWorkersIn(List.of(worker), List.of("running", "scheduled")).size());
    assertTrue(
        vms.countByStatus().stream().anyMatch(n -> n.label().equals("running") && n.total() >= 2));
  }

  @Inject VmSetRepository sets;

  @Test
  void taskFailuresCountPerWorkerWithinTheWindowAndSinceItsLastCoolDown() {
    String w = unique("failing");
    WorkerRow row = workers.save(worker(w));
    for (int minutes : new int[] {1, 5, 20}) {
      workers.taskFailed(w, T0.minusSeconds(minutes * 60L));
    }
    java.util.function.Supplier<Long> counted =
        () ->
            workers.taskFailuresSince(T0.minusSeconds(600)).stream()
                .filter(c -> c.label().equals(w))
                .mapToLong(Count::total)
                .sum();
    assertEquals(2, counted.get(), "the one 20 minutes ago is outside ten minutes");

    workers.decideHealth(w, row.version(), "ready", "cooled down", T0.minusSeconds(180));
    assertEquals(1, counted.get(), "only what failed since its cool-down ended counts");

    workers.forgetTaskFailures(T0.minusSeconds(600));
    workers.decideHealth(w, row.version() + 1, "ready", "answering", null);
    assertEquals(2, counted.get(), "the old one is gone; the two within the window remain");
  }

  @Inject WorkerImages images;

  @Test
  void heldImagesComeWithAHeartbeatAndNoRegistrationWrittenFromAnOlderReadUndoesThem() {
    String w = unique("holder");
    WorkerRow row = workers.save(worker(w));
    assertEquals(Map.of(), images.of(List.of(w)), "its agent said nothing yet");
    Map<String, Instant> held = Map.of("ghcr.io/acme/a:1", T0.minusSeconds(60), "b:2", T0);
    Map<String, WorkerPull> pulls =
        Map.of("oci://reg/vm:1", new WorkerPull(WorkerPull.PULLING, "pulling 40% of 2 MiB"));
    assertEquals(1, images.heartbeat(w, T0.plusSeconds(5), held, pulls));
    assertEquals(held, images.of(List.of(w)).get(w));
    assertEquals(pulls, images.pulls(List.of(w)).get(w), "and what it is fetching");
    assertEquals(held, images.all().get(w));
    assertEquals(T0.plusSeconds(5), workers.findById(w).orElseThrow().lastSeen());

    workers.update(row.withPaused(true));
    assertEquals(
        held,
        images.of(List.of(w)).get(w),
        "a pause written from the row read before is no report of images");
    images.held(w, Map.of());
    assertEquals(Map.of(), images.of(List.of(w)).get(w), "it holds none now");
    assertEquals(1, images.heartbeat(w, T0.plusSeconds(6), held, Map.of()));
    assertEquals(Map.of(), images.pulls(List.of(w)), "nothing under way");
    assertEquals(0, images.heartbeat(unique("nobody"), T0, held, Map.of()));
  }

  @Inject ImagePrefetchRepository prefetches;

  @Test
  void prefetchesAreKeptWithTheirSelectorInTheOrderTheyCame() {
    String a = unique("pf");
    String b = unique("pf");
    prefetches.save(new ImagePrefetchRow(b, "oci://reg/vm:2", Map.of(), T0.plusSeconds(1)));
    prefetches.save(new ImagePrefetchRow(a, "https://a.example/d.qcow2", Map.of("zone", "a"), T0));
    List<ImagePrefetchRow> all =
        prefetches.inOrder().stream().filter(p -> p.id().equals(a) || p.id().equals(b)).toList();
    assertEquals(List.of(a, b), all.stream().map(ImagePrefetchRow::id).toList());
    assertEquals(Map.of("zone", "a"), all.get(0).selector());
    prefetches.deleteById(a);
    prefetches.deleteById(b);
  }

  @Test
  void theOldestPendingWaitCountsFromWhenAVmLastBecamePending() {
    // Earlier than any other row of the shared database, so that this one is the oldest.
    Instant early = Instant.parse("2001-01-01T00:00:00Z");
    VmRow row = vms.save(vm(unique("waiting"), "running", "w1"));
    try {
      assertTrue(
          vms.oldestPendingSince().map(t -> t.isAfter(early)).orElse(true), "not pending yet");
      assertEquals(1, vms.requeue(row.name(), row.seq(), 1, "restarted", null, early, null));
      assertEquals(early, vms.oldestPendingSince().orElseThrow().truncatedTo(ChronoUnit.SECONDS));
    } finally {
      vms.deleteById(row.name());
    }
    assertTrue(vms.oldestPendingSince().map(t -> t.isAfter(early)).orElse(true), "gone with it");
  }

  @Test
  void aMoveBeginsOnlyFromTheGenerationRunningWhereThePlanSawIt() {
    VmRow row = vm(unique("mover"), "running", "w1");
    vms.save(row);
    assertEquals(0, vms.startMove(row.name(), row.seq(), 0, "w2", "moving"), "not running there");
    assertEquals(
        0, vms.startMove(row.name(), row.seq() + 1, 0, "w1", "moving"), "another submission");
    assertEquals(1, vms.startMove(row.name(), row.seq(), 0, "w1", "moving to w3"));
    assertEquals(0, vms.startMove(row.name(), row.seq(), 0, "w1", "moving to w3"), "once");
    VmRow moving = vms.findById(row.name()).orElseThrow();
    assertEquals(1, moving.state().restartCount());
    assertEquals("w1", moving.notes().movingFrom());
    assertEquals("running", moving.state().status(), "it runs on, on its old copy");

    assertEquals(0, vms.moved(row.name(), 0), "only the new generation's start ends the move");
    assertEquals(1, vms.moved(row.name(), 1));
    VmRow moved = vms.findById(row.name()).orElseThrow();
    assertEquals(null, moved.notes().movingFrom());
    assertEquals(
        "w1", moved.notes().oldCopyOn(), "its old copy is being stopped: the move is not over");
    assertEquals(0, vms.moveEnded(row.name(), "w2"), "not that worker's copy");
    assertEquals(1, vms.moveEnded(row.name(), "w1"));
    assertEquals(null, vms.findById(row.name()).orElseThrow().notes().oldCopyOn());
    assertEquals(0, vms.moveEnded(row.name(), "w1"), "once");

    vms.startMove(row.name(), row.seq(), 1, "w1", "moving again");
    vms.requeue(row.name(), 0, 3, "restarted", null, T0, null);
    assertEquals(
        null, vms.findById(row.name()).orElseThrow().notes().movingFrom(), "a restart ends a move");
  }

  @Test
  void aTasksReadinessIsWrittenOnlyWhileItIsTheVmsCurrentRunningTask() {
    VmRow running = vms.save(vm(unique("r"), "running", "w1"));
    assertEquals(
        0,
        vms.readiness(running.name(), running.seq(), 1, T0, null),
        "not of its current generation");
    assertEquals(
        0, vms.readiness(running.name(), running.seq() + 1, 0, T0, null), "not of its submission");
    assertEquals(1, vms.readiness(running.name(), running.seq(), 0, T0, null));
    assertEquals(
        new VmReadiness(0, T0, null), vms.findById(running.name()).orElseThrow().readiness());
    assertEquals(1, vms.readiness(running.name(), running.seq(), 0, null, "tcp: refused"));
    assertEquals(
        new VmReadiness(0, null, "tcp: refused"),
        vms.findById(running.name()).orElseThrow().readiness());
    VmRow stopped = vms.save(vm(unique("s"), "stopped", null));
    assertEquals(
        0, vms.readiness(stopped.name(), stopped.seq(), 0, T0, null), "not while it is stopped");
  }

  @Test
  void aDrainRoundTripsItsProgressIsWrittenOnlyWhileDrainingAndAnEvictionIsToldOncePerGeneration() {
    String name = unique("drained");
    workers.save(worker(name));
    assertEquals(0, workers.drainProgress(name, "drained: no VMs left"), "not draining");
    Instant deadline = T0.plusSeconds(3600);
    workers.update(workers.findById(name).orElseThrow().withDrain(deadline, T0));
    assertEquals(1, workers.drainProgress(name, "draining until " + deadline + ": 1 VM left"));
    WorkerRow draining = workers.findById(name).orElseThrow();
    assertEquals(deadline, draining.drainDeadline());
    assertEquals(T0, draining.drainStartedAt());
    assertTrue(draining.schedulingPaused());
    assertEquals("draining until " + deadline + ": 1 VM left", draining.drainProgress());
    workers.update(draining.withPaused(false).withDrain(null, T0));
    WorkerRow resumed = workers.findById(name).orElseThrow();
    assertEquals(null, resumed.drainDeadline());
    assertEquals(null, resumed.drainProgress());
    assertFalse(resumed.schedulingPaused());

    VmRow row = vm(unique("evicted"), "running", name);
    vms.save(row);
    assertEquals(0, vms.evicted(row.name(), row.seq(), 1), "not its generation");
    assertEquals(1, vms.evicted(row.name(), row.seq(), 0));
    assertEquals(0, vms.evicted(row.name(), row.seq(), 0), "told once");
    vms.requeue(row.name(), 0, 1, "restarted", null, T0, null);
    assertEquals(0, vms.evicted(row.name(), row.seq(), 1), "pending: not on any worker");
  }

  @Test
  void aSetsRolloutIsKeptOnItsRowAndAStaleVersionsWritesChangeNothing() {
    String name = unique("set");
    VmTemplate first =
        VmTemplate.builder("process")
            .command(List.of("sleep", "1"))
            .restartPolicy("Always")
            .build();
    VmTemplate second =
        VmTemplate.builder("process")
            .command(List.of("sleep", "2"))
            .restartPolicy("Always")
            .build();
    VmSetRow v1 = sets.save(VmSetRow.created(name, sets.nextSeq(), 3, first, "none", 1, T0));
    SetUpdate update = new SetUpdate(1, 5, 60, true, 1, false);
    VmSetRow v2 = sets.update(v1.respecified(3, second, "none", 1, update, T0.plusSeconds(1)));
    assertEquals(2, v2.templateVersion());
    VmSetRow read = sets.findById(name).orElseThrow();
    assertEquals(update, read.update(), "how it rolls out round-trips");
    assertEquals(new SetRollout(1, 0, T0.plusSeconds(1), false, false), read.rollout());

    assertEquals(1, sets.rolloutProgressed(name, 2, 2, T0.plusSeconds(9)));
    assertEquals(0, sets.rolloutProgressed(name, 1, 3, T0.plusSeconds(9)), "another version's");
    assertEquals(1, sets.promote(name, 2, T0.plusSeconds(10)));
    assertEquals(0, sets.promote(name, 1, T0.plusSeconds(10)), "another version's");
    assertEquals(1, sets.pauseRollouts(name, true, T0.plusSeconds(11)));
    assertEquals(
        new SetRollout(1, 2, T0.plusSeconds(11), true, true),
        sets.findById(name).orElseThrow().rollout());
    assertEquals(1, sets.pauseRollouts(name, false, T0.plusSeconds(12)));
    assertEquals(
        T0.plusSeconds(12),
        sets.findById(name).orElseThrow().rollout().progressAt(),
        "a resumed rollout's deadline counts from then");
    assertEquals(1, sets.rolledOut(name, 2));
    assertEquals(
        new SetRollout(2, 0, null, true, false), sets.findById(name).orElseThrow().rollout());
    assertTrue(
        sets.findById(name).orElseThrow().version() > v2.version(),
        "a promotion or a pause makes a concurrent change of the set read it again");
  }

  @Test
  void aSetKeepsItsTemplateAndItsReplicasAreFoundByIt() {
    String set = unique("set");
    VmTemplate template =
        VmTemplate.builder("process")
            .command(List.of("sleep", "1"))
            .env(Map.of("A", "b"))
            .resources(Map.of("cpu", 2L, "memory", 256L))
            .labels(Map.of("disk", "ssd"))
            .restartPolicy("OnFailure")
            .build();
    sets.save(VmSetRow.created(set, sets.nextSeq(), 3, template, "label:zone", 1, T0));
    assertEquals(
        template, sets.findById(set).orElseThrow().template(), "the template round-trips as JSON");
    for (int i = 2; i >= 0; i--) {
      vms.save(
          VmRow.replica(
              VmSetRow.replicaName(set, i),
              vms.nextSeq(),
              template,
              new VmSetMembership(set, i, 1),
              "waiting",
              T0));
    }
    vms.save(vm(unique("loner"), "pending", null));
    assertEquals(
        List.of(set + "-0", set + "-1", set + "-2"),
        vms.replicasOf(set).stream().map(VmRow::name).toList());
    assertEquals(3, vms.page(0, null, null, set, 10).size());
    assertEquals(set + "-0", vms.firstPendingReplica(set).orElseThrow().name());
    assertEquals(List.of(new Count("pending", 3)), vms.countReplicasByStatus(set));
    assertTrue(
        sets.shapes().contains(new VmSetRepository.SetShape(set, "label:zone", 3, 1, false)));

    assertEquals(1, sets.recordMessage(set, "name taken"));
    assertEquals(0, sets.recordMessage(set, "name taken"), "written only when it changed");
    assertEquals(1, sets.recordMessage(set, null));
    assertEquals(1, sets.resize(set, 5));
    assertFalse(vms.deletingSetHasReplicasLeft(set), "not being deleted");
    sets.markDeleting(set);
    assertEquals(0, sets.resize(set, 7), "no scaling a set being deleted");
    VmSetRow row = sets.findById(set).orElseThrow();
    assertEquals(5, row.replicas());
    assertTrue(row.deleting());
    assertEquals(null, row.message());
    assertTrue(vms.deletingSetHasReplicasLeft(set));
    vms.deleteById(set + "-0");
    vms.deleteById(set + "-2");
    assertTrue(vms.deletingSetHasReplicasLeft(set), "one left");
    vms.deleteById(set + "-1");
    assertFalse(vms.deletingSetHasReplicasLeft(set), "the last one gone");
  }

  @Test
  void aVmsCreationTimeIsReadForItsOwnSubmissionOnly() {
    VmRow saved = vms.save(vm(unique("vm"), "pending", null));
    assertEquals(java.util.Optional.of(T0), vms.createdAtOf(saved.name(), saved.seq()));
    assertTrue(
        vms.createdAtOf(saved.name(), saved.seq() + 1).isEmpty(),
        "another submission of that name");
    assertTrue(vms.createdAtOf(unique("nobody"), saved.seq()).isEmpty());
  }

  @Test
  void eventsKeepTheirOrderAndGoWithTheirVm() {
    String name = unique("vm");
    events.append(name, T0, "created", "one");
    events.append(name, T0.plusSeconds(1), "stopped", "two");
    events.append(unique("other"), T0, "created", "elsewhere");
    List<VmEventRow> all = events.page(name, 0, 10);
    assertEquals(List.of("created", "stopped"), all.stream().map(VmEventRow::type).toList());
    assertEquals(
        List.of("stopped"),
        events.page(name, all.get(0).id(), 10).stream().map(VmEventRow::type).toList());
    events.deleteAllOfIn(List.of(name));
    assertFalse(events.page(name, 0, 10).iterator().hasNext());
  }

  @Test
  void aVmKeepsOnlyItsNewestEventsAndOthersKeepTheirs() {
    String name = unique("chatty");
    String quiet = unique("quiet");
    events.append(quiet, T0, "created", "kept");
    for (int i = 0; i < VmEventRepository.KEPT_PER_VM + 5; i++) {
      events.append(name, T0.plusSeconds(i), "restarted", "restart " + i);
    }
    List<VmEventRow> kept = events.page(name, 0, VmEventRepository.KEPT_PER_VM + 10);
    assertEquals(VmEventRepository.KEPT_PER_VM, kept.size());
    assertEquals("restart 5", kept.get(0).message(), "the oldest went");
    assertEquals(
        "restart " + (VmEventRepository.KEPT_PER_VM + 4), kept.get(kept.size() - 1).message());
    assertEquals(1, events.page(quiet, 0, 10).size());
  }

  @Test
  void everyWriteToAVmOrAWorkerIsInTheChangeFeedButAHeartbeatOrAWriteOfNothingIsNot() {
    long before = changes.lastId() == null ? 0 : changes.lastId();
    String w = unique("fed");
    workers.save(worker(w));
    workers.heartbeat(w, T0.plusSeconds(5));
    workers.probeAnswered(w, T0.plusSeconds(6));
    WorkerRow row = workers.findById(w).orElseThrow();
    workers.decideHealth(w, row.version(), "ready", "agent answering", null);
    VmRow vm = vm(unique("fed-vm"), "pending", null);
    vms.save(vm);
    vms.explainPending(vm.name(), "no room", false);
    vms.explainPending(vm.name(), "no room", false); // the same reason: nothing written
    vms.recordStatus(vm.name(), 0, "stopped", "stopped by request");
    vms.deleteById(vm.name());
    workers.deleteById(w);

    List<String> seen =
        changes.after(before, "worker", 100).stream()
            .filter(c -> c.name().equals(w))
            .map(c -> c.deleted() ? "deleted" : "written")
            .toList();
    assertEquals(
        List.of("written", "written", "deleted"),
        seen,
        "registered, health decided, deleted; no heartbeat");
    List<String> vmSeen =
        changes.after(before, "vm", 100).stream()
            .filter(c -> c.name().equals(vm.name()))
            .map(c -> c.deleted() ? "deleted" : "written")
            .toList();
    assertEquals(
        List.of("written", "written", "written", "deleted"),
        vmSeen,
        "submitted, explained once, stopped, deleted");
    List<Long> ids = changes.idsAfter(before, 100);
    assertEquals(ids.stream().sorted().toList(), ids, "in id order");
    assertTrue(changes.forgetBefore(java.time.Instant.now().plusSeconds(60)) >= 6);
    assertEquals(
        List.of(),
        changes.after(before, "vm", 100).stream().filter(c -> c.name().equals(vm.name())).toList());
    assertEquals(
        changes.lastId(),
        changes.firstId(),
        "the newest is kept: it says how far the feed has come");
  }

  @Inject ServiceAccountRepository accounts;

  @Test
  void anAccountKeepsItsRolesInEachNamespace() {
    Map<String, List<String>> inNamespaces =
        Map.of(
            "team-b", List.of("compute:read"), "team-a", List.of("compute:write", "secrets:use"));
    accounts.save(
        new ServiceAccountRow(
            "scoped", "ab".repeat(32), List.of(), inNamespaces, null, java.time.Instant.EPOCH));
    ServiceAccountRow read = accounts.findByTokenHash("ab".repeat(32)).orElseThrow();
    assertEquals(inNamespaces, read.namespaceRoles());
    assertEquals(List.of(), read.roles());
    accounts.deleteById("scoped");
  }
}
