package dev.rota.activities;

import dev.rota.store.GroupCommit;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

/**
 * A VM's rows coming and going: stored with its first event when submitted (by a user, or by its set),
 * removed with its events when deleted. Every VM enters and leaves the store here.
 */
@Singleton
public class VmSubmissions {
  private final VmRepository vms;
  private final VmEventRepository events;
  private final TransactionOperations<Connection> tx;
  private final GroupCommit commits;

  public VmSubmissions(VmRepository vms, VmEventRepository events, TransactionOperations<Connection> tx, GroupCommit commits) {
    this.vms = vms;
    this.events = events;
    this.tx = tx;
    this.commits = commits;
  }

  /**
   * Stores {@code row} under a fresh submission number, with its "created" event, in one transaction;
   * a name already taken fails with the store's unique violation ({@link dev.rota.store.Sql#isUniqueViolation}).
   */
  public VmRow store(VmRow row, String createdMessage) {
    return commits.write(GroupCommit.vm(row.name()), () -> {
      VmRow stored = vms.save(row.withSeq(vms.nextSeq()));
      events.append(stored.name(), stored.createdAt(), "created", createdMessage);
      return stored;
    });
  }

  /**
   * Stores every row, each under a fresh submission number and with its "created" event, in one
   * transaction: all or none. A name already taken fails it with the store's unique violation.
   */
  public List<VmRow> storeAll(List<VmRow> rows, String createdMessage) {
    return tx.executeWrite(status -> {
      List<VmRow> stored = new ArrayList<>(rows.size());
      for (VmRow row : rows) {
        VmRow saved = vms.save(row.withSeq(vms.nextSeq()));
        events.append(saved.name(), saved.createdAt(), "created", createdMessage);
        stored.add(saved);
      }
      return stored;
    });
  }

  /** Removes the VM's row and events; nothing else of it is left to remove. */
  public void remove(String name) {
    tx.executeWrite(status -> {
      events.deleteAllOf(name);
      vms.deleteById(name);
      return null;
    });
  }
}
