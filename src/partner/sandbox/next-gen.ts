/** The `nextGen` block of a company: social profiles, employee reviews and web traffic. */
import type { Company } from '../schemas.js';
import type { Prng } from './prng.js';

type NextGen = NonNullable<Company['nextGen']>;

function joined(prng: Prng): string {
  const year = prng.int(2008, 2022);
  const month = String(prng.int(1, 12)).padStart(2, '0');
  const day = String(prng.int(1, 28)).padStart(2, '0');
  return `${year}-${month}-${day}`;
}

function rating(prng: Prng): string {
  return (prng.int(25, 49) / 10).toFixed(1);
}

function uuid(prng: Prng): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(prng.next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

export function makeNextGen(prng: Prng, slug: string, website: string, name: string, home: string): NextGen {
  const profile = () => ({
    profile_name: name,
    handle: slug,
    followers: prng.int(50, 250_000),
    videos: prng.int(0, 400),
    likes: prng.int(0, 90_000),
    views: prng.int(0, 5_000_000),
    subscribers: prng.int(0, 120_000),
    following: prng.int(0, 2_000),
    verified: prng.chance(0.15),
    joined: joined(prng),
  });
  const direct = prng.int(20, 50);
  const search = prng.int(20, 45);
  const referrals = prng.int(2, 15);
  const social = prng.int(1, 10);
  const visitors = prng.int(500, 2_000_000);
  const organic = prng.int(40, 95);
  return {
    id: uuid(prng),
    website,
    social_media: { youtube: profile(), instagram: profile(), linkedin: profile(), facebook: profile() },
    reviews_rating: {
      ceo_approval: `${prng.int(40, 98)}%`,
      total_reviews: prng.int(0, 1_500),
      rating: {
        ceo_approval_rating: rating(prng),
        career_opportunities_rating: rating(prng),
        compensation_and_benefits_rating: rating(prng),
        culture_and_values_rating: rating(prng),
        diversity_and_inclusion_rating: rating(prng),
        senior_management_rating: rating(prng),
        work_life_balance_rating: rating(prng),
      },
      overall_rating: rating(prng),
      employee_rating_id: `er_${prng.digits(8)}`,
      recommend_to_friend: prng.int(30, 95),
      url: `https://reviews.example/companies/${slug}`,
    },
    web_traffic: {
      summary: {
        avg_visit_duration: `00:0${prng.int(0, 9)}:${String(prng.int(0, 59)).padStart(2, '0')}`,
        total_web_visitors: visitors,
        bounce_rate: prng.int(250, 800) / 10,
        pages_per_visit: prng.int(11, 60) / 10,
      },
      traffic_share: { countries: { [home]: prng.int(40, 90) }, organic, paid: 100 - organic },
      marketing_channels_distribution: {
        Direct: direct,
        Search: search,
        Referrals: referrals,
        Social: social,
        Mail: Math.max(0, 100 - direct - search - referrals - social),
      },
    },
  };
}
