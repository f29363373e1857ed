package dev.rota.store;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

/** PostgreSQL dialect everywhere: H2 runs in PostgreSQL mode, so one set of queries serves both. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ClusterStatusRepository extends CrudRepository<ClusterStatusRow, String> {}
