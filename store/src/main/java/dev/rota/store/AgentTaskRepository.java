package dev.rota.store;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface AgentTaskRepository extends GenericRepository<AgentTaskRow, String> {
  <S extends AgentTaskRow> List<S> saveAll(Iterable<S> rows);

  <S extends AgentTaskRow> List<S> updateAll(Iterable<S> rows);

  void deleteByIdInList(Collection<String> id);

  List<AgentTaskRow> findByWorkerInList(Collection<String> worker);

  java.util.Optional<AgentTaskRow> findById(String id);

  int deleteByWorker(String worker);
}
