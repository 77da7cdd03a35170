# Production-like image for docker-compose.yml (not buildable on the development machines,
# which have no Docker engine; kept simple and consistent with the env variable names).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
WORKDIR /app
COPY requirements.lock .
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && grep -v '^torch==' requirements.lock > /tmp/req.txt \
 && pip install --no-cache-dir -r /tmp/req.txt
COPY . .
RUN DJANGO_SECRET_KEY=build DATABASE_URL=sqlite:///tmp/x REDIS_URL=redis://localhost:6379/0 \
    python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--no-proxy-headers", "--no-server-header"]
