package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface AgentTaskRepository extends GenericRepository<AgentTaskRow, String> {
  @Query("DELETE FROM agent_tasks WHERE worker = :worker")
  void deleteAllOf(String worker);

  <S extends AgentTaskRow> List<S> saveAll(Iterable<S> rows);

  List<AgentTaskRow> findByWorkerInList(Collection<String> worker);
}
