# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /srv
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DEBUG=1 python manage.py collectstatic --noinput
RUN useradd --system app && chown -R app /srv
USER app
EXPOSE 8000
CMD ["gunicorn", "attribution_site.wsgi", "-c", "gunicorn.conf.py"]
