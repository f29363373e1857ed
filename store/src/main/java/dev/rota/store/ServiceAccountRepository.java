package dev.rota.store;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ServiceAccountRepository extends CrudRepository<ServiceAccountRow, String> {
  Optional<ServiceAccountRow> findByTokenHash(String tokenHash);
}
