package dev.rota.store;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.List;

/** VM templates, by name. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface TemplateRepository extends CrudRepository<TemplateRow, String> {
  /** Every template, by name. */
  List<TemplateRow> listOrderByName();

  /** How many live in {@code namespace}. */
  long countByNamespace(String namespace);
}
