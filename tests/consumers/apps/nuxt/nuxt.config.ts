export default defineNuxtConfig({ compatibilityDate: '2025-07-01', devtools: { enabled: false }, telemetry: false });
