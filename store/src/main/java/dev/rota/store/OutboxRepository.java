package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface OutboxRepository extends GenericRepository<OutboxRow, Long> {
  @Query(
      """
      INSERT INTO outbox (id, kind, worker, task_id, vm, detail, created_at, attempts, vm_seq)
      VALUES (nextval('outbox_seq'), :kind, :worker, :taskId, :vm, :detail, :createdAt, 0, :vmSeq)""")
  void add(
      String kind,
      String worker,
      String taskId,
      @Nullable String vm,
      @Nullable Long vmSeq,
      @Nullable String detail,
      Instant createdAt);

  /**
   * User data for the running task {@code taskId} of VM {@code vm}: {@code payload} itself, or the
   * value of secret {@code secret}.
   */
  @Query(
      """
      INSERT INTO outbox (id, kind, worker, task_id, vm, vm_seq, payload, secret, created_at, attempts)
      VALUES (nextval('outbox_seq'), 'deliver', :worker, :taskId, :vm, :vmSeq, :payload, :secret, :createdAt, 0)""")
  void addDelivery(
      String worker,
      String taskId,
      String vm,
      long vmSeq,
      @Nullable String payload,
      @Nullable String secret,
      Instant createdAt);

  /**
   * An action of any kind, its id the sequence's next, for many as one batch (in the batch's
   * order): {@link #add}'s and {@link #addEvent}'s columns together.
   */
  String ADD_ANY =
      """
      INSERT INTO outbox (id, kind, worker, task_id, vm, detail, created_at, attempts, vm_seq, event, exit_code, started_at)
      VALUES (nextval('outbox_seq'), :kind, :worker, :taskId, :vm, :detail, :createdAt, 0, :vmSeq, :event, :exitCode, :startedAt)""";

  @Query("SELECT nextval('outbox_seq')")
  long nextId();

  /** The sequence's next {@code count} ids, in one read, for a batch of {@link #ADD_EVENT}. */
  @Query("SELECT nextval('outbox_seq') FROM generate_series(1, :count)")
  List<Long> nextIds(int count);

  /**
   * A task event for a VM's workflow, with an id taken from {@link #nextId} or {@link #nextIds}.
   */
  String ADD_EVENT =
      """
      INSERT INTO outbox (id, kind, worker, task_id, vm, detail, created_at, attempts, vm_seq, event, exit_code, started_at)
      VALUES (:id, 'notify', :worker, :taskId, :vm, :message, :at, 0, :vmSeq, :event, :exitCode, :startedAt)""";

  @Query(ADD_EVENT)
  void addEvent(
      long id,
      String worker,
      String taskId,
      String vm,
      long vmSeq,
      String event,
      @Nullable Integer exitCode,
      String message,
      Instant at,
      @Nullable Instant startedAt);

  /** The oldest actions after {@code afterId}: one pass over the outbox tries each action once. */
  /** A claimed pool replica's calls and news, now its new name's. */
  @Query("UPDATE outbox SET vm = :to WHERE vm = :from")
  int renameVm(String from, String to);

  @Query("SELECT * FROM outbox WHERE id > :afterId ORDER BY id LIMIT :limit")
  List<OutboxRow> after(long afterId, int limit);

  /** The oldest calls to agents (starts, removals) after {@code afterId}. */
  @Query("SELECT * FROM outbox WHERE kind <> 'notify' AND id > :afterId ORDER BY id LIMIT :limit")
  List<OutboxRow> agentCallsAfter(long afterId, int limit);

  /** The oldest news for VMs' workflows after {@code afterId}. */
  @Query("SELECT * FROM outbox WHERE kind = 'notify' AND id > :afterId ORDER BY id LIMIT :limit")
  List<OutboxRow> newsAfter(long afterId, int limit);

  /** The VM's newest task event still in the outbox, if any. */
  @Query("SELECT * FROM outbox WHERE kind = 'notify' AND vm = :vm ORDER BY id DESC LIMIT 1")
  java.util.Optional<OutboxRow> newestNews(String vm);

  /**
   * The VM's task events still in the outbox up to event {@code uptoId}, itself included, oldest
   * first.
   */
  @Query("SELECT * FROM outbox WHERE kind = 'notify' AND vm = :vm AND id <= :uptoId ORDER BY id")
  List<OutboxRow> eventsUpTo(String vm, long uptoId);

  /**
   * A VM's news up to {@code taskEventId}, of submission {@code vmSeq}, left untold: its workflow
   * was started with a row that shows it (and would ignore it). Run as a batch.
   */
  String HANDED_OVER =
      "DELETE FROM outbox WHERE kind = 'notify' AND vm = :vm AND vm_seq = :vmSeq AND id <= :taskEventId";

  @Query("DELETE FROM outbox WHERE id = :id")
  void done(long id);

  /** {@link #done}, saying whether it was still there (1) or another took it out first (0). */
  @Query("DELETE FROM outbox WHERE id = :id")
  int takeOut(long id);

  /**
   * Takes many out at once: one statement (and one commit) for a pass's or a report's actions done.
   */
  @Query("DELETE FROM outbox WHERE id IN (:ids)")
  void doneAll(Collection<Long> ids);

  /** A call now for another worker: the task it is for was placed there. */
  @Query("UPDATE outbox SET worker = :worker WHERE id = :id")
  int redirect(long id, String worker);

  @Query("UPDATE outbox SET attempts = attempts + 1, detail = :detail WHERE id = :id")
  void failedOnce(long id, String detail);

  @Query("UPDATE outbox SET attempts = attempts + 1 WHERE id = :id")
  void triedOnce(long id);

  /**
   * Actions tried fewer than {@code attempts} times: worth trying again soon rather than next
   * interval.
   */
  @Query("SELECT COUNT(*) FROM outbox WHERE attempts < :attempts")
  long pendingTriedFewerThan(int attempts);

  @Query("SELECT COUNT(*) FROM outbox")
  long pending();
}
