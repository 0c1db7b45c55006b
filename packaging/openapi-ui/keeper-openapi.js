// Starts Swagger UI on keeper's /openapi page with the document the pool serves
// (docs/api-decisions.md, "OpenAPI"). No validator badge: it would send the document to
// validator.swagger.io, and the page loads nothing from elsewhere.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
  });
});
