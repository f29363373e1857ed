package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface SecretRepository extends CrudRepository<SecretRow, String> {
  List<SecretRow> findByNameInList(Collection<String> names);

  /** Every secret, by name. */
  List<SecretRow> listOrderByName();

  /** A new value for a secret that exists; 0 if it does not. */
  @Query("UPDATE secrets SET sealed = :sealed, updated_at = :updatedAt WHERE name = :name")
  int reseal(String name, String sealed, Instant updatedAt);

  /** How many live in {@code namespace}. */
  long countByNamespace(String namespace);
}
