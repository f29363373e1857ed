package dev.rota.activities;

import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;

/**
 * A VM's rows coming and going: stored with its first event when submitted (by a user, or by its set),
 * removed with its events when deleted. Every VM enters and leaves the store here.
 */
@Singleton
public class VmSubmissions {
  private final VmRepository vms;
  private final VmEventRepository events;
  private final TransactionOperations<Connection> tx;

  public VmSubmissions(VmRepository vms, VmEventRepository events, TransactionOperations<Connection> tx) {
    this.vms = vms;
    this.events = events;
    this.tx = tx;
  }

  /**
   * Stores {@code row} under a fresh submission number, with its "created" event, in one transaction;
   * a name already taken fails with the store's unique violation ({@link dev.rota.store.Sql#isUniqueViolation}).
   */
  public VmRow store(VmRow row, String createdMessage) {
    return tx.executeWrite(status -> {
      VmRow stored = vms.save(row.withSeq(vms.nextSeq()));
      events.append(stored.name(), stored.createdAt(), "created", createdMessage);
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
