package dev.rota.store;

import io.micronaut.flyway.FlywayConfigurationCustomizer;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over a database made by a build from before release 0.1.0, whose schema history lists the
 * 35 migrations that 0.1.0's one baseline ({@code db.migration.V1__Schema}) replaced. A database at
 * the last of them has 0.1.0's schema already: its history is dropped and Flyway records the
 * baseline in its place, so that nothing runs and every later migration applies. A database at an
 * earlier one is refused in one line, changing nothing: the build that made it brings it to the
 * last first.
 */
@Singleton
@Named("default")
public class PreReleaseSchema implements FlywayConfigurationCustomizer {
  private static final Logger log = LoggerFactory.getLogger(PreReleaseSchema.class);

  /** The last migration before the baseline, which a database taken over must have reached. */
  static final int LAST = 35;

  /** The first migration's script before the baseline: its row marks a pre-release history. */
  static final String FIRST_SCRIPT = "V1__cluster.sql";

  @Override
  public String getName() {
    return "default";
  }

  @Override
  public void customizeFluentConfiguration(FluentConfiguration configuration) {
    DataSource data = configuration.getDataSource();
    if (data == null) {
      return;
    }
    try (Connection c = data.getConnection()) {
      takeOver(c)
          .ifPresent(
              reached -> {
                configuration.baselineOnMigrate(true).baselineVersion("1");
                log.warn(
                    "took over a database made before release 0.1.0 (its schema at migration {},"
                        + " the last before the release): its schema is the release's",
                    reached);
              });
    } catch (SQLException e) {
      throw new FlywayException("could not read the database's schema history: " + e, e);
    }
  }

  /**
   * Drops a pre-release schema history at its last migration and returns that migration; empty for
   * any other database; throws for one at an earlier migration.
   */
  static Optional<Integer> takeOver(Connection c) throws SQLException {
    Integer reached = preReleaseMigration(c);
    if (reached == null) {
      return Optional.empty();
    }
    if (reached != LAST) {
      throw new FlywayException(
          "this database was made by a build from before release 0.1.0 and stopped at its"
              + " migration "
              + reached
              + " of "
              + LAST
              + ": start that build once to bring it to the last, then this one");
    }
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE \"flyway_schema_history\"");
    }
    if (!c.getAutoCommit()) {
      c.commit();
    }
    return Optional.of(reached);
  }

  /** The highest migration applied of a pre-release history; null when the history is not one. */
  private static Integer preReleaseMigration(Connection c) throws SQLException {
    boolean inTransaction = !c.getAutoCommit();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT \"version\", \"script\", \"success\" FROM \"flyway_schema_history\"")) {
      boolean preRelease = false;
      int highest = 0;
      while (rs.next()) {
        preRelease |= FIRST_SCRIPT.equals(rs.getString("script"));
        String version = rs.getString("version");
        if (rs.getBoolean("success") && version != null && version.matches("\\d+")) {
          highest = Math.max(highest, Integer.parseInt(version));
        }
      }
      return preRelease ? highest : null;
    } catch (SQLException noHistory) {
      // A new database: no history to take over. PostgreSQL's failed statement spoils the
      // transaction, if there is one, until it is rolled back.
      if (inTransaction) {
        c.rollback();
      }
      return null;
    }
  }
}
