package dev.rota.api.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.serde.annotation.Serdeable;

/**
 * An RFC 9457 problem: every error answer has this body, as {@code application/problem+json}.
 *
 * @param detail what went wrong, naming the offending field or resource
 */
// Every field of the API's resources is present, null or empty included.
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record Problem(String type, String title, int status, String detail) {}
