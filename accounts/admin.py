"""Operators manage organizations and users here; password hashes are never shown."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import Organization, User


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "created_at")
    search_fields = ("name", "id")
    readonly_fields = ("id", "created_at")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    ordering = ("email",)
    list_display = ("email", "name", "role", "organization", "is_active", "is_staff")
    list_filter = ("role", "is_active", "is_staff")
    search_fields = ("email", "name")
    list_select_related = ("organization",)
    raw_id_fields = ("organization",)
    readonly_fields = ("id", "date_joined", "last_login")
    fieldsets = (
        (None, {"fields": ("id", "email")}),
        ("Profile", {"fields": ("name", "role", "organization")}),
        ("Access", {"fields": ("is_active", "is_staff", "is_superuser", "groups",
                               "user_permissions")}),
        ("Dates", {"fields": ("date_joined", "last_login")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",),
                             "fields": ("email", "name", "organization", "role",
                                        "password1", "password2")}),)
