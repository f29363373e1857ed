package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmRepository extends CrudRepository<VmRow, String> {
  @Query("SELECT nextval('vm_seq')")
  long nextSeq();

  /**
   * A page of VMs in submission order after {@code afterSeq}, optionally only one status or one
   * worker. Ordering by the submission sequence keeps pages stable while VMs are added.
   */
  @Query("""
      SELECT * FROM vms
      WHERE seq > :afterSeq
        AND (CAST(:status AS VARCHAR) IS NULL OR status = :status)
        AND (CAST(:worker AS VARCHAR) IS NULL OR worker = :worker)
      ORDER BY seq LIMIT :limit""")
  List<VmRow> page(long afterSeq, @Nullable String status, @Nullable String worker, int limit);

  List<VmRow> findByWorkerInListAndStatusInList(Collection<String> worker, Collection<String> status);

  @Query("SELECT status AS label, COUNT(*) AS total FROM vms GROUP BY status")
  List<Count> countByStatus();
}
