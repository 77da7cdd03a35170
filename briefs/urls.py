from django.urls import path

from briefs import views

app_name = "briefs"

urlpatterns = [
    path("", views.index, name="index"),
]
