package dev.rota.store;

import dev.rota.testing.TestPostgres;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;

/**
 * The same on a real PostgreSQL ({@link TestPostgres}): the proxy stands between the pool and the
 * server's port.
 */
@MicronautTest(environments = "postgres", transactional = false)
class PostgresCommitInDoubtTest extends CommitInDoubtTest {
  @Override
  public Map<String, String> getProperties() {
    String url = TestPostgres.url();
    URI server = URI.create(url.substring("jdbc:".length()));
    try {
      proxy = CuttingProxy.to(server.getPort());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> settings =
        new java.util.HashMap<>(
            TestPostgres.datasource(
                url.replace(
                    server.getHost() + ":" + server.getPort(), "127.0.0.1:" + proxy.port())));
    settings.put("datasources.default.minimum-idle", "0");
    return settings;
  }
}
