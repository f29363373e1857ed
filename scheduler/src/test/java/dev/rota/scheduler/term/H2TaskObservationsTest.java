package dev.rota.scheduler.term;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;

/** The term's batched writes on H2 in PostgreSQL mode, as dev mode runs. */
@MicronautTest
class H2TaskObservationsTest extends TaskObservationsContract {}
