from django.urls import path

from home import views

app_name = "home"

urlpatterns = [
    path("health/", views.health_panel, name="health"),
]
