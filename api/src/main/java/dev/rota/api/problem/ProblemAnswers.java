package dev.rota.api.problem;

import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The error answers an operation can give, for the OpenAPI document: each of these on a controller
 * or a method adds its statuses, each with a {@link Problem} body, so that a client (or a fuzzer
 * checking the API against its document) knows every status it may see. {@link Guarded} belongs on
 * every controller under {@code /v1}.
 */
public final class ProblemAnswers {
  private ProblemAnswers() {}

  static final String PROBLEM = "application/problem+json";

  /**
   * What any call under {@code /v1} may answer: no or a bad token, a missing role, too many
   * requests, the database or Temporal down.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "401",
      description = "no bearer token, or one that is not valid",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  @ApiResponse(
      responseCode = "403",
      description = "the token's account lacks the role for this call, or acts for another worker",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  @ApiResponse(
      responseCode = "429",
      description =
          "too many requests from this token or address; Retry-After says when to try again",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  @ApiResponse(
      responseCode = "503",
      description = "the database or Temporal cannot be reached; nothing was changed, try again",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface Guarded {}

  /**
   * The request (body, query or path) is not valid, the detail naming the field; or its body is too
   * large.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "400",
      description = "the request is not valid; the detail names the field",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  @ApiResponse(
      responseCode = "413",
      description = "the body is larger than the host takes (1 MiB by default)",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface Invalid {}

  /** The named resource does not exist. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "404",
      description = "no such resource",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface Missing {}

  /** The resource's state (or a name already taken) does not allow this now. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "409",
      description = "the resource's state, or a name already taken, does not allow this",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface Conflicting {}

  /** A watch from a resourceVersion older than what is kept. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "410",
      description =
          "resourceVersion is older than the changes kept; list again and watch from there",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface Expired {}

  /** An agent the answer needs did not answer as it should. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "502",
      description = "the VM's agent did not answer as it should",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface AgentFailed {}

  /** The Temporal server has no Schedules (dev mode's embedded server). */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.METHOD})
  @ApiResponse(
      responseCode = "501",
      description = "the Temporal server has no Schedules (dev mode's embedded server)",
      content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
  public @interface Unsupported {}
}
