package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ImagePrefetchRepository extends CrudRepository<ImagePrefetchRow, String> {
  /** Every prefetch, oldest first. */
  @Query("SELECT * FROM image_prefetches ORDER BY created_at, id")
  List<ImagePrefetchRow> inOrder();
}
