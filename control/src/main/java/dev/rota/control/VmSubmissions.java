package dev.rota.control;

import dev.rota.store.BatchStatement;
import dev.rota.store.CertainCommits;
import dev.rota.store.GroupCommit;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkflowStartRepository;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A VM's rows coming and going: stored with its first event when submitted (by a user, or by its
 * set), removed with its events when deleted. Every VM enters and leaves the store here.
 */
@Singleton
public class VmSubmissions {
  private final VmRepository vms;
  private final VmEventRepository events;
  private final TransactionOperations<Connection> tx;
  private final GroupCommit commits;
  private final CertainCommits certain;
  private final WorkflowStartRepository starts;
  private final dev.rota.store.VolumeRepository volumes;
  private final NamespaceQuotas quotas;
  private final BatchStatement createdLines = BatchStatement.of(VmEventRepository.INSERT);
  private final BatchStatement startsOwed = BatchStatement.of(WorkflowStartRepository.ADD);

  public VmSubmissions(
      VmRepository vms,
      VmEventRepository events,
      TransactionOperations<Connection> tx,
      GroupCommit commits,
      CertainCommits certain,
      WorkflowStartRepository starts,
      dev.rota.store.VolumeRepository volumes,
      NamespaceQuotas quotas) {
    this.quotas = quotas;
    this.starts = starts;
    this.volumes = volumes;
    this.vms = vms;
    this.events = events;
    this.tx = tx;
    this.commits = commits;
    this.certain = certain;
  }

  /**
   * Stores {@code row} under a fresh submission number, with its "created" event, in one
   * transaction; a name already taken fails with the store's unique violation ({@link
   * dev.rota.store.Sql#isUniqueViolation}).
   */
  public VmRow store(VmRow row, String createdMessage) {
    return store(row, createdMessage, false);
  }

  /**
   * A user's submission: {@link #store}, and in the same transaction the start its workflow is owed
   * ({@link VmWorkflowStarter}), so that what was stored is started even if this process dies now.
   */
  public VmRow submit(VmRow row, String createdMessage) {
    return store(row, createdMessage, true);
  }

  private VmRow store(VmRow row, String createdMessage, boolean owesStart) {
    return commits.write(
        GroupCommit.vm(row.name()), together, new Submission(row, createdMessage, owesStart));
  }

  /**
   * Stores every row, each under a fresh submission number and with its "created" event and the
   * start its workflow is owed, in one transaction: all or none. A name already taken fails it with
   * the store's unique violation.
   */
  public List<VmRow> storeAll(List<VmRow> rows, String createdMessage) {
    return certain.write(
        () ->
            storeTogether(
                rows.stream().map(r -> new Submission(r, createdMessage, true)).toList()));
  }

  /** A VM to store: its row, its "created" line, whether its workflow's start is owed. */
  private record Submission(VmRow row, String createdMessage, boolean owesStart) {}

  /**
   * Concurrent submissions share their transaction's statements too: each statement is a batch over
   * all of them, a handful of round trips for a transaction however many it holds.
   */
  private final GroupCommit.Together<Submission, VmRow> together = this::storeTogether;

  private List<VmRow> storeTogether(List<Submission> submissions) {
    quotas.charge(usage(submissions.stream().map(Submission::row).toList()));
    List<VmRow> numbered = new ArrayList<>(submissions.size());
    List<Long> seqs = vms.nextSeqs(submissions.size());
    for (int i = 0; i < submissions.size(); i++) {
      numbered.add(submissions.get(i).row().withSeq(seqs.get(i)));
    }
    List<VmRow> stored = new ArrayList<>(submissions.size());
    for (VmRow saved : vms.saveAll(numbered)) {
      // Mounting may place its disk where its volumes are: what is answered shows it.
      stored.add(mount(saved) ? vms.findById(saved.name()).orElseThrow() : saved);
    }
    // The events as one batch: a new VM's log holds nothing to trim.
    List<Map<String, Object>> created = new ArrayList<>(stored.size());
    List<Map<String, Object>> owed = new ArrayList<>(stored.size());
    for (int i = 0; i < stored.size(); i++) {
      VmRow v = stored.get(i);
      created.add(
          Map.of(
              "vmName",
              v.name(),
              "time",
              v.createdAt(),
              "type",
              "created",
              "message",
              submissions.get(i).createdMessage()));
      if (submissions.get(i).owesStart()) {
        owed.add(Map.of("vm", v.name(), "vmSeq", v.seq(), "submittedAt", v.createdAt()));
      }
    }
    createdLines.run(tx.getConnection(), created);
    startsOwed.run(tx.getConnection(), owed);
    return stored;
  }

  /**
   * Removes the VM's rows and events if the name still holds {@code submission} (any, for 0);
   * nothing else of it is left to remove. A VM submitted again under the name since is not touched:
   * its row, events and owed start are its own.
   */
  public void remove(String name, long submission) {
    certain.write(() -> removeHeld(Map.of(name, submission)));
  }

  /**
   * {@link #remove} for each of {@code rows}, by its own submission, in one transaction; the rows
   * that were still there to remove.
   */
  public List<VmRow> removeAll(List<VmRow> rows) {
    if (rows.isEmpty()) {
      return List.of();
    }
    Map<String, Long> submissions = new java.util.LinkedHashMap<>();
    rows.forEach(row -> submissions.put(row.name(), row.seq()));
    return certain.write(
        () -> {
          java.util.Set<String> removed = removeHeld(submissions);
          return rows.stream().filter(row -> removed.contains(row.name())).toList();
        });
  }

  /**
   * Removes the rows, events, owed starts and volume mounts of each name whose VM is of its
   * submission, or gone already; the names whose rows were there.
   */
  private java.util.Set<String> removeHeld(Map<String, Long> submissions) {
    Map<String, VmRow> there = new java.util.HashMap<>();
    vms.findByNameInList(submissions.keySet()).forEach(v -> there.put(v.name(), v));
    List<String> names =
        submissions.keySet().stream()
            .filter(n -> !there.containsKey(n) || holds(there.get(n), submissions.get(n)))
            .toList();
    if (!names.isEmpty()) {
      events.deleteAllOfIn(names);
      starts.forgetAll(names);
      volumes.detachAll(names);
      vms.deleteAllNamed(names);
      quotas.release(usage(names.stream().filter(there::containsKey).map(there::get).toList()));
    }
    return names.stream().filter(there::containsKey).collect(java.util.stream.Collectors.toSet());
  }

  /** What {@code rows} hold against their namespaces' quotas, by namespace. */
  private static Map<String, dev.rota.core.model.NamespaceUsage> usage(List<VmRow> rows) {
    return NamespaceQuotas.byNamespace(
        rows.stream().map(r -> Map.entry(r.spec().namespace(), r.spec().usage())).toList());
  }

  /**
   * Mounts the volumes {@code vm} names on it, in its submission's transaction: each must exist and
   * be free, and all be on one worker, where the VM's disk then is (or, made nowhere yet, where the
   * VM is first placed); a refusal names the volume's field. Whether its disk was placed so: its
   * row then reads otherwise.
   */
  private boolean mount(VmRow vm) {
    List<dev.rota.store.VolumeMount> mounts = vm.spec().volumes();
    if (mounts.isEmpty()) {
      return false;
    }
    List<String> names = mounts.stream().map(dev.rota.store.VolumeMount::name).toList();
    java.util.Map<String, dev.rota.store.VolumeRow> found = new java.util.HashMap<>();
    volumes.findHeldByNameInList(names).forEach(v -> found.put(v.name(), v));
    String worker = null;
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      dev.rota.store.VolumeRow v = found.get(name);
      String at = "volumes[" + i + "].name: ";
      if (v == null) {
        throw new VolumesUnavailable(
            at + "no volume named " + name + ": create it (POST /v1/volumes)");
      }
      if (v.vm() != null) {
        throw new VolumesUnavailable(at + "volume " + name + " is mounted by VM " + v.vm());
      }
      if (v.worker() != null && worker != null && !worker.equals(v.worker())) {
        throw new VolumesUnavailable(
            at + "volume " + name + " is on worker " + v.worker() + ", the others on " + worker);
      }
      worker = v.worker() != null ? v.worker() : worker;
    }
    // Another submission may have taken one since it was read: the update says so.
    if (volumes.attach(vm.name(), names) != names.size()) {
      throw new VolumesUnavailable(
          "volumes: one of " + names + " was mounted by another VM meanwhile; nothing was created");
    }
    return worker != null && vms.diskOn(vm.name(), vm.seq(), worker) == 1;
  }

  /** Whether {@code vm} is of {@code submission}: any VM is, for 0. */
  static boolean holds(VmRow vm, long submission) {
    return submission == 0 || vm.seq() == submission;
  }
}
