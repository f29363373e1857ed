package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** One entry of a VM's events log; {@code id} orders the log. */
@MappedEntity("vm_events")
public record VmEventRow(@Id long id, String vmName, Instant time, String type, String message) {}
