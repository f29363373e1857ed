package dev.rota.scheduler.term;

import dev.rota.testing.TestPostgres;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;

/** The term's batched writes on a real PostgreSQL ({@link TestPostgres}). */
@MicronautTest(environments = "postgres")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresTaskObservationsTest extends TaskObservationsContract
    implements TestPropertyProvider {
  @Override
  public Map<String, String> getProperties() {
    return TestPostgres.datasource(TestPostgres.url());
  }
}
