package dev.rota.host.temporal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.RotaSearchAttributes;
import io.temporal.common.SearchAttributeKey;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The servers Rota's scripts start register every search attribute its workflows set: one missing
 * there fails the starts and workflow tasks that set it.
 */
class SearchAttributesListedTest {
  @Test
  void theCiServerAndTheDockerStackRegisterEveryAttribute() throws Exception {
    String ci = Files.readString(Path.of("..", ".ci", "temporal"));
    String docker = Files.readString(Path.of("..", "docker", "temporal-setup.sh"));
    for (SearchAttributeKey<?> key : RotaSearchAttributes.ALL) {
      String type = CliTemporalServer.cliType(key);
      assertTrue(ci.contains(key.getName() + "=" + type), ".ci/temporal lacks " + key.getName());
      assertTrue(
          docker.contains(key.getName() + ":" + type),
          "docker/temporal-setup.sh lacks " + key.getName());
    }
  }
}
