package dev.rota.store;

import dev.rota.testing.TestPostgres;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;

/** The same contract on a real PostgreSQL ({@link TestPostgres}). */
@MicronautTest(environments = "postgres")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRepositoryTest extends RepositoryContract implements TestPropertyProvider {
  @Override
  public Map<String, String> getProperties() {
    return TestPostgres.datasource(TestPostgres.url());
  }
}
