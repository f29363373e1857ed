package dev.rota.store;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;

/** The store's contract on H2 in PostgreSQL mode, the embedded default. */
@MicronautTest
class H2RepositoryTest extends RepositoryContract {}
