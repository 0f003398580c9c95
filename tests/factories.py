"""factory-boy factories with people named for their role in a test: owner, outsider."""

from __future__ import annotations

import factory

from accounts.models import Organization, User
from apps_registry.models import App


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Company {n}")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    name = factory.Faker("name")
    role = User.Role.ADMIN
    organization = factory.SubFactory(OrganizationFactory)
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class AppFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = App

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"App {n}")
    platform = "android"
    package_name = factory.Sequence(lambda n: f"com.example.app{n}")
    play_store_url = factory.LazyAttribute(
        lambda o: f"https://play.google.com/store/apps/details?id={o.package_name}")
    app_store_url = "https://apps.apple.com/app/id123456789"


def issue_key(app, **kwargs) -> str:
    """A fresh full API key for the app, made the way the API makes one."""
    from apps_registry.services import api_key_create

    _record, full_key = api_key_create(app=app, **kwargs)
    return full_key
