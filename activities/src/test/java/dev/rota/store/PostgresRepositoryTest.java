package dev.rota.store;

import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The same contract on a real PostgreSQL, when {@code ROTA_TEST_POSTGRES_URL} names one (CI starts
 * one; see .ci/postgres). Set it by hand to run it locally, e.g.
 * {@code ROTA_TEST_POSTGRES_URL=jdbc:postgresql://127.0.0.1:5432/rota?user=rota}.
 */
@EnabledIfEnvironmentVariable(
    named = "ROTA_TEST_POSTGRES_URL",
    matches = "jdbc:postgresql:.+",
    disabledReason = "no PostgreSQL: set ROTA_TEST_POSTGRES_URL=jdbc:postgresql://host:port/db?user=… to run the store's contract on it")
@MicronautTest(environments = "postgres")
@Property(name = "datasources.default.url", value = "${ROTA_TEST_POSTGRES_URL}")
@Property(name = "datasources.default.driver-class-name", value = "org.postgresql.Driver")
@Property(name = "datasources.default.username", value = "")
@Property(name = "datasources.default.password", value = "")
class PostgresRepositoryTest extends RepositoryContract {}
