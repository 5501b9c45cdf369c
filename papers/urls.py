from django.urls import path

from . import views

app_name = "papers"

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path(
        "conferences/<slug:slug>/",
        views.ConferenceDetailView.as_view(),
        name="conference-detail",
    ),
    path(
        "conferences/<slug:conference_slug>/awards/<slug:slug>/",
        views.AwardDetailView.as_view(),
        name="award-detail",
    ),
    path("papers/<slug:slug>/", views.PaperDetailView.as_view(), name="paper-detail"),
    path("authors/<slug:slug>/", views.AuthorDetailView.as_view(), name="author-detail"),
]
