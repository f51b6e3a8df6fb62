/** Word lists the generator draws names, titles and skills from. All invented or common words. */
import type { NamePool } from './geography.js';

export const GIVEN_NAMES: Record<NamePool, { female: readonly string[]; male: readonly string[] }> = {
  anglo: {
    female: ['Olivia', 'Charlotte', 'Amelia', 'Isla', 'Mia', 'Grace', 'Chloe', 'Emily', 'Sophie', 'Hannah', 'Lucy', 'Zoe'],
    male: ['Oliver', 'Jack', 'William', 'Noah', 'Thomas', 'James', 'Lucas', 'Henry', 'Liam', 'Samuel', 'Ethan', 'Max'],
  },
  chinese: {
    female: ['Mei Ling', 'Xiu Ying', 'Hui Min', 'Jia Hui', 'Wen Qi', 'Li Na', 'Shu Fen', 'Yan Ting'],
    male: ['Wei Jie', 'Jun Hao', 'Zhi Wei', 'Kai Xiang', 'Ming Hui', 'Jia Le', 'Hong Wei', 'Yong Sheng'],
  },
  malay: {
    female: ['Nur Aisyah', 'Siti Aminah', 'Dewi', 'Putri', 'Nurul', 'Ayu', 'Farah', 'Intan'],
    male: ['Ahmad', 'Muhammad Hafiz', 'Budi', 'Arif', 'Rizal', 'Faisal', 'Hakim', 'Agus'],
  },
  filipino: {
    female: ['Maria Clara', 'Angelica', 'Kristine', 'Jasmine', 'Patricia', 'Camille', 'Andrea', 'Bea'],
    male: ['Jose', 'Mark Anthony', 'Paolo', 'Miguel', 'Carlo', 'Rafael', 'Joshua', 'Angelo'],
  },
  japanese: {
    female: ['Yui', 'Haruka', 'Sakura', 'Aoi', 'Yuna', 'Misaki', 'Nanami', 'Rin'],
    male: ['Haruto', 'Sota', 'Ren', 'Yuto', 'Takumi', 'Kenji', 'Daiki', 'Hiroshi'],
  },
  vietnamese: {
    female: ['Lan', 'Huong', 'Mai', 'Thu', 'Linh', 'Ngoc Anh', 'Trang', 'Phuong'],
    male: ['Minh', 'Tuan', 'Duc', 'Quang', 'Hoang', 'Nam', 'Thanh', 'Long'],
  },
  korean: {
    female: ['Ji-woo', 'Seo-yeon', 'Min-ji', 'Ha-eun', 'Soo-ah', 'Ye-jin', 'Eun-ji', 'Da-eun'],
    male: ['Min-jun', 'Seo-jun', 'Ji-hoon', 'Hyun-woo', 'Jae-won', 'Dong-hyun', 'Sung-min', 'Tae-yang'],
  },
  thai: {
    female: ['Ploy', 'Nok', 'Kanya', 'Siriporn', 'Malee', 'Ratana', 'Pimchanok', 'Sasithorn'],
    male: ['Somchai', 'Niran', 'Anan', 'Kittisak', 'Prasert', 'Thanawat', 'Chaiwat', 'Sakda'],
  },
};

export const FAMILY_NAMES: Record<NamePool, readonly string[]> = {
  anglo: ['Smith', 'Jones', 'Williams', 'Brown', 'Wilson', 'Taylor', 'Johnson', 'White', 'Martin', 'Anderson', 'Thompson',
    'Nguyen', 'Walker', 'Harris', 'Ryan', 'Robinson', 'Kelly', 'King', 'Campbell', 'Mitchell'],
  chinese: ['Tan', 'Lim', 'Lee', 'Ng', 'Ong', 'Wong', 'Goh', 'Chua', 'Chan', 'Koh', 'Teo', 'Chen', 'Ho', 'Leung', 'Cheung'],
  malay: ['Abdullah', 'Rahman', 'Ismail', 'Hassan', 'Santoso', 'Wijaya', 'Hidayat', 'Saputra', 'Yusof', 'Ibrahim'],
  filipino: ['Santos', 'Reyes', 'Cruz', 'Bautista', 'Garcia', 'Mendoza', 'Torres', 'Villanueva', 'Ramos', 'Aquino'],
  japanese: ['Sato', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato'],
  vietnamese: ['Nguyen', 'Tran', 'Le', 'Pham', 'Hoang', 'Phan', 'Vu', 'Dang', 'Bui', 'Do'],
  korean: ['Kim', 'Lee', 'Park', 'Choi', 'Jung', 'Kang', 'Cho', 'Yoon', 'Jang', 'Lim'],
  thai: ['Saetang', 'Srisuk', 'Chaiyaporn', 'Wongsawat', 'Rattanakorn', 'Boonmee', 'Kaewmanee', 'Phromma', 'Suwannarat', 'Thongdee'],
};

export const NAME_PREFIXES = ['Harbour', 'Summit', 'Coastal', 'Northstar', 'Bluegum', 'Redback', 'Silverline', 'Ironbark',
  'Southern Cross', 'Lotus', 'Meridian', 'Pacific', 'Evergreen', 'Horizon', 'Kestrel', 'Granite', 'Tidal', 'Orchid',
  'Banyan', 'Sakura', 'Monsoon', 'Equator', 'Lighthouse', 'Cobalt', 'Copperleaf', 'Riverbend', 'Skyward', 'Jade',
  'Wattle', 'Kauri', 'Fernleaf', 'Saltbush', 'Brightwater', 'Stonegate', 'Clearview', 'Longreach', 'Tasman', 'Coral',
  'Aurora', 'Peregrine'];
export const NAME_QUALIFIERS = ['Group', 'Partners', 'Holdings', 'Labs', 'Collective', 'Works', 'Co', 'International'];

/** Business nouns per industry division letter. */
export const INDUSTRY_NOUNS: Record<string, readonly string[]> = {
  A: ['Farms', 'Agriculture', 'Aquafarms', 'Timber'], B: ['Resources', 'Minerals', 'Mining', 'Energy'],
  C: ['Manufacturing', 'Industries', 'Foods', 'Fabrication'], D: ['Utilities', 'Power', 'Water', 'Recycling'],
  E: ['Construction', 'Builders', 'Civil', 'Developments'], F: ['Trading', 'Distribution', 'Supply', 'Wholesale'],
  G: ['Retail', 'Stores', 'Market', 'Outfitters'], H: ['Hospitality', 'Hotels', 'Kitchens', 'Cafes'],
  I: ['Logistics', 'Freight', 'Transport', 'Couriers'], J: ['Media', 'Digital', 'Networks', 'Telecom'],
  K: ['Capital', 'Finance', 'Insurance', 'Wealth'], L: ['Property', 'Realty', 'Rentals', 'Estates'],
  M: ['Consulting', 'Software', 'Analytics', 'Engineering'], N: ['Services', 'Staffing', 'Facilities', 'Cleaning'],
  O: ['Security', 'Safety', 'Civic Services', 'Compliance'], P: ['Academy', 'Learning', 'Education', 'Training'],
  Q: ['Health', 'Medical', 'Care', 'Clinics'], R: ['Studios', 'Arts', 'Sports', 'Entertainment'],
  S: ['Repairs', 'Maintenance', 'Personal Services', 'Auto Care'],
};

export const DEPARTMENT_ROLES: Record<number, { area: string; chief: string; staff: readonly string[]; skills: readonly string[] }> = {
  1: { area: 'Operations', chief: 'Chief Executive Officer', staff: ['General Manager', 'Business Manager'], skills: ['Leadership', 'Strategy', 'P&L Management', 'Stakeholder Management'] },
  2: { area: 'Sales', chief: 'Chief Revenue Officer', staff: ['Account Executive', 'Sales Representative', 'Business Development Representative'], skills: ['Negotiation', 'Salesforce', 'Prospecting', 'Account Management', 'Cold Calling'] },
  3: { area: 'Trades', chief: 'Chief Operating Officer', staff: ['Electrician', 'Carpenter', 'Plumber', 'Fitter and Turner'], skills: ['Electrical Wiring', 'Carpentry', 'Workplace Safety', 'Blueprint Reading'] },
  4: { area: 'Operations', chief: 'Chief Operating Officer', staff: ['Operations Coordinator', 'Logistics Coordinator', 'Planner'], skills: ['Process Improvement', 'Supply Chain', 'Lean', 'Scheduling'] },
  5: { area: 'Engineering', chief: 'Chief Technology Officer', staff: ['Software Engineer', 'Civil Engineer', 'Data Engineer', 'DevOps Engineer'], skills: ['TypeScript', 'Python', 'AWS', 'Kubernetes', 'AutoCAD', 'SQL'] },
  6: { area: 'People', chief: 'Chief People Officer', staff: ['HR Business Partner', 'Recruiter', 'Payroll Officer'], skills: ['Recruitment', 'Employee Relations', 'Payroll', 'Workday'] },
  7: { area: 'Customer Service', chief: 'Chief Customer Officer', staff: ['Customer Service Representative', 'Support Specialist'], skills: ['Customer Support', 'Zendesk', 'Complaint Handling', 'CRM'] },
  8: { area: 'Clinical Services', chief: 'Chief Medical Officer', staff: ['Registered Nurse', 'General Practitioner', 'Physiotherapist'], skills: ['Patient Care', 'Clinical Governance', 'Triage', 'Medical Records'] },
  9: { area: 'Research', chief: 'Chief Scientific Officer', staff: ['Research Analyst', 'Data Analyst', 'Research Scientist'], skills: ['Statistics', 'R', 'Market Research', 'Excel', 'Tableau'] },
  10: { area: 'Legal', chief: 'General Counsel', staff: ['Lawyer', 'Paralegal', 'Legal Counsel'], skills: ['Contract Law', 'Litigation', 'Compliance', 'Corporate Governance'] },
  11: { area: 'Marketing', chief: 'Chief Marketing Officer', staff: ['Marketing Coordinator', 'Content Specialist', 'Digital Marketing Specialist'], skills: ['SEO', 'Content Strategy', 'HubSpot', 'Google Ads', 'Brand Management'] },
  12: { area: 'Learning', chief: 'Chief Learning Officer', staff: ['Teacher', 'Trainer', 'Instructional Designer'], skills: ['Curriculum Design', 'Coaching', 'E-learning', 'Public Speaking'] },
  13: { area: 'Advisory', chief: 'Managing Partner', staff: ['Consultant', 'Senior Consultant', 'Business Analyst'], skills: ['Change Management', 'Business Analysis', 'Workshops', 'Project Management'] },
  14: { area: 'Finance', chief: 'Chief Financial Officer', staff: ['Accountant', 'Financial Analyst', 'Accounts Payable Officer'], skills: ['Financial Reporting', 'Xero', 'Budgeting', 'Audit', 'Forecasting'] },
  15: { area: 'Product', chief: 'Chief Product Officer', staff: ['Product Manager', 'Product Owner', 'UX Designer'], skills: ['Product Discovery', 'Roadmapping', 'Figma', 'Agile', 'User Research'] },
  16: { area: 'Administration', chief: 'Chief Administrative Officer', staff: ['Administrator', 'Office Coordinator', 'Executive Assistant'], skills: ['Microsoft Office', 'Scheduling', 'Office Management'] },
  17: { area: 'Administration', chief: 'Chief Executive Officer', staff: ['Team Member', 'Associate'], skills: ['Teamwork', 'Communication'] },
};

export const DEGREES = ['Bachelor of Commerce', 'Bachelor of Science', 'Bachelor of Engineering', 'Bachelor of Arts',
  'Master of Business Administration', 'Bachelor of Laws', 'Diploma of Business', 'Master of Science'];
export const FIELDS_OF_STUDY = ['Accounting', 'Computer Science', 'Marketing', 'Economics', 'Civil Engineering',
  'Psychology', 'Law', 'Information Systems', 'Nursing', 'Mechanical Engineering'];
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
