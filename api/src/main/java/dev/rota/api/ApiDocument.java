package dev.rota.api;

import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.info.Info;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.security.SecurityScheme;

/** The OpenAPI document's header; the paths come from the controllers at compile time. */
@OpenAPIDefinition(
    info =
        @Info(
            title = "Rota",
            version = "1",
            description =
                "Places VMs on worker machines and keeps them healthy. Errors are application/problem+json."),
    security = @SecurityRequirement(name = "token"))
@SecurityScheme(
    name = "token",
    type = SecuritySchemeType.HTTP,
    scheme = "bearer",
    description =
        "A service account's token (Authorization: Bearer <token>); dev mode runs with auth off.")
public final class ApiDocument {
  private ApiDocument() {}
}
