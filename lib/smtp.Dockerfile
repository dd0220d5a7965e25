# The SMTP submission service (functions/smtp/main.ts), bundled by esbuild at synth
# (lib/smtp-image.ts): one file, nothing to install. Node 24, as the Lambdas run.
FROM public.ecr.aws/docker/library/node:24-alpine
WORKDIR /app
COPY main.js main.js.map ./
ENV NODE_ENV=production NODE_OPTIONS=--enable-source-maps
# Unprivileged: the load balancer maps 587 and 465 onto ports above 1024.
USER node
EXPOSE 2587 2465
CMD ["node", "/app/main.js"]
