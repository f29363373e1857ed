package dev.rota.store;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The same on a real PostgreSQL, when {@code ROTA_TEST_POSTGRES_URL} names one (CI starts one; see
 * .ci/postgres): the proxy stands between the pool and the server's port.
 */
@EnabledIfEnvironmentVariable(
    named = "ROTA_TEST_POSTGRES_URL",
    matches = "jdbc:postgresql:.+",
    disabledReason = "no PostgreSQL: set ROTA_TEST_POSTGRES_URL=jdbc:postgresql://host:port/db?user=… to run it there")
@MicronautTest(environments = "postgres", transactional = false)
class PostgresCommitInDoubtTest extends CommitInDoubtTest {
  @Override
  public Map<String, String> getProperties() {
    String url = System.getenv("ROTA_TEST_POSTGRES_URL");
    URI server = URI.create(url.substring("jdbc:".length()));
    try {
      proxy = CuttingProxy.to(server.getPort());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of(
        "datasources.default.url", url.replace(server.getHost() + ":" + server.getPort(), "127.0.0.1:" + proxy.port()),
        "datasources.default.driver-class-name", "org.postgresql.Driver",
        "datasources.default.username", "",
        "datasources.default.password", "",
        "datasources.default.minimum-idle", "0");
  }
}
