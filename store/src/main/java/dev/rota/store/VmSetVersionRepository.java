package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.List;
import java.util.Optional;

/** The templates each set has had, by version. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmSetVersionRepository extends CrudRepository<VmSetVersionRow, Long> {
  /** A set's versions, the newest first, at most {@code limit}. */
  @Query(
      "SELECT * FROM vm_set_versions WHERE set_name = :setName ORDER BY version DESC LIMIT :limit")
  List<VmSetVersionRow> newestOf(String setName, int limit);

  @Query("SELECT * FROM vm_set_versions WHERE set_name = :setName AND version = :version")
  Optional<VmSetVersionRow> find(String setName, int version);
}
