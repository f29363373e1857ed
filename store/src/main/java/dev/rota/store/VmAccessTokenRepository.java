package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VmAccessTokenRepository extends CrudRepository<VmAccessTokenRow, String> {
  /** Forgets the tokens that expired before {@code now}: they open nothing any more. */
  void deleteByExpiresAtLessThan(Instant now);

  /**
   * Forgets the tokens of a VM's submission: a claimed pool replica's open nothing of the user's.
   */
  @Query("DELETE FROM vm_access_tokens WHERE vm = :vm AND vm_seq = :vmSeq")
  int forget(String vm, long vmSeq);
}
