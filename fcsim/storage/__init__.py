"""Storage devices behind FCP targets: mechanical disks and RAM disks."""
